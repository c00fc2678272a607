// The load reports from a results document: the charts are drawn, every string is escaped, a
// document with members of the wrong type (hand-edited, hostile) renders without throwing, and
// JUnit shows one failing test case per broken guarantee or missed objective.
#include <gtest/gtest.h>

#include "reports/load_report.hpp"

namespace ac::reports {
namespace {

Json sample() {
  Json doc = {{"format", "agentconform-load/1"},
              {"protocol", "agora"},
              {"target", {{"kind", "remote"}, {"url", "ws://evil/<script>alert(1)</script>"}}},
              {"options", {{"mode", "open-loop"}, {"agents", 2}, {"lanes", 1}, {"message_size", 256}, {"duration_s", 2}, {"rate", 1000}}},
              {"machine", {{"nproc", 2}, {"cpu", "AMD EPYC"}}},
              {"totals", {{"sent", 2000}, {"delivered", 1998}, {"lost", 2}, {"duplicated", 0}, {"reordered", 0}, {"misdelivered", 0},
                          {"invalid", 0}, {"connection_failures", 0}, {"errors", 1}, {"throughput", 999.0}, {"traffic_s", 2.0}}},
              {"latency", {{"p50", 0.2}, {"p90", 0.3}, {"p99", 0.9}, {"p999", 1.5}, {"max", 2.0}, {"count", 1998}}},
              {"histogram", Json::array({{{"low_ns", 100000}, {"high_ns", 103124}, {"count", 1000}},
                                         {{"low_ns", 800000}, {"high_ns", 824999}, {"count", 998}}})},
              {"timeline", Json::array({{{"t_s", 1.0}, {"sent_per_s", 1000}, {"delivered_per_s", 999}, {"p99_ms", 0.8}},
                                        {{"t_s", 2.0}, {"sent_per_s", 1000}, {"delivered_per_s", 999}, {"p99_ms", 0.9}}})},
              {"errors", {{"UNKNOWN_<b>STREAM", 1}}},
              {"slo", Json::array({{{"objective", "p99<=0.5ms"}, {"figure", "p99"}, {"actual", 0.9}, {"unit", "ms"}, {"ok", false}}})},
              {"verdict", {{"passed", false}, {"reasons", Json::array({"2 messages lost"})}}}};
  return doc;
}

TEST(LoadReports, HtmlDrawsChartsAndEscapes) {
  const std::string html = render_load_html(sample());
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos) << "throughput over time";
  EXPECT_NE(html.find("<rect x="), std::string::npos) << "histogram bars";
  EXPECT_NE(html.find("p99.9"), std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<b>STREAM"), std::string::npos);
  EXPECT_NE(html.find("UNKNOWN_&lt;b&gt;STREAM"), std::string::npos);
  EXPECT_NE(html.find("FAIL"), std::string::npos);
}

TEST(LoadReports, JunitHasAFailurePerBrokenCheck) {
  const std::string xml = render_load_junit(sample());
  EXPECT_NE(xml.find("failures=\"2\""), std::string::npos) << xml;  // lost + the objective
  EXPECT_NE(xml.find("name=\"no message lost\""), std::string::npos);
  EXPECT_NE(xml.find("objective p99&lt;=0.5ms"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<script>"), std::string::npos);
}

TEST(LoadReports, OddDocumentsRenderWithoutThrowing) {
  for (Json doc : {Json(nullptr), Json::array(), Json::object(), Json{{"totals", "x"}, {"histogram", 5}, {"timeline", {{"t_s", "a"}}}},
                   Json{{"histogram", Json::array({{{"low_ns", -5}, {"high_ns", 1e300}, {"count", 1e30}}})}, {"verdict", {{"reasons", 3}}}}}) {
    EXPECT_NO_THROW({
      (void)render_load_html(doc);
      (void)render_load_junit(doc);
      (void)render_load_markdown(doc);
      (void)render_load_text(doc);
    }) << doc.dump();
  }
  EXPECT_NE(latency_histogram_svg(Json::array()).find("no latency recorded"), std::string::npos);
}

TEST(LoadReports, MarkdownAndText) {
  const std::string md = render_load_markdown(sample());
  EXPECT_NE(md.find("**FAIL**"), std::string::npos);
  EXPECT_NE(md.find("| lost | 2 |"), std::string::npos) << md;
  const std::string text = render_load_text(sample());
  EXPECT_NE(text.find("verdict: FAIL"), std::string::npos);
  EXPECT_NE(text.find("2 messages lost"), std::string::npos);
}

}  // namespace
}  // namespace ac::reports

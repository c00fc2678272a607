// The load reports other than HTML (load_html.cpp): JSON, JUnit XML, Markdown, the terminal
// summary, and writing them into the report directory.
#include <cmath>
#include <cstdio>

#include "reports/load_report.hpp"
#include "reports/load_view.hpp"
#include "reports/text.hpp"

namespace ac::reports {

namespace load_view {

const Json& at(const Json& doc, const char* pointer) {
  static const Json null;
  try {
    const Json::json_pointer p(pointer);
    return doc.contains(p) ? doc.at(p) : null;
  } catch (const std::exception&) {
    return null;
  }
}

double num(const Json& doc, const char* pointer, double fallback) {
  const Json& v = at(doc, pointer);
  if (!v.is_number()) return fallback;
  const double d = v.get<double>();
  return std::isfinite(d) ? d : fallback;
}

std::uint64_t count(const Json& doc, const char* pointer) {
  const double d = num(doc, pointer, 0);
  return d > 0 && d < 1.8e19 ? static_cast<std::uint64_t>(d) : 0;
}

std::string str(const Json& doc, const char* pointer, std::size_t max) {
  const Json& v = at(doc, pointer);
  if (v.is_string()) return truncate_utf8(v.get<std::string>(), max);
  if (v.is_null()) return {};
  return truncate_utf8(v.dump(-1, ' ', false, Json::error_handler_t::replace), max);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string thousands(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::vector<Check> checks(const Json& doc) {
  std::vector<Check> out;
  auto guarantee = [&](const char* name, const char* pointer, const char* what) {
    const std::uint64_t n = count(doc, pointer);
    out.push_back({name, n == 0, thousands(n) + " " + what});
  };
  guarantee("no message lost", "/totals/lost", "messages sent and never delivered to their receiver");
  guarantee("no message duplicated", "/totals/duplicated", "messages delivered more than once");
  guarantee("no message reordered", "/totals/reordered", "messages delivered after a later message of their lane");
  guarantee("no message misdelivered", "/totals/misdelivered", "messages delivered to an agent they were not addressed to");
  guarantee("no message altered", "/totals/invalid", "messages that failed the full check of a sample");
  guarantee("no connection failure", "/totals/connection_failures", "connections failed during the run");
  const Json& slo = at(doc, "/slo");
  if (slo.is_array()) {
    for (const auto& s : slo) {
      if (!s.is_object()) continue;
      const std::string objective = str(s, "/objective", 200);
      out.push_back({"objective " + objective, s.value("ok", false) == true,
                     str(s, "/figure", 64) + " = " + fixed(num(s, "/actual", 0), 3) + " " + str(s, "/unit", 16)});
    }
  }
  return out;
}

}  // namespace load_view

using namespace load_view;

std::string render_load_json(const Json& doc) { return doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n"; }

std::string render_load_text(const Json& doc) {
  std::string out;
  const bool passed = at(doc, "/verdict/passed") == true;
  out += "\n" + str(doc, "/protocol", 32) + ": sent " + thousands(count(doc, "/totals/sent")) + ", delivered " +
         thousands(count(doc, "/totals/delivered")) + " in " + fixed(num(doc, "/totals/traffic_s", 0), 1) + " s: " +
         thousands(static_cast<std::uint64_t>(num(doc, "/totals/throughput", 0))) + " msg/s\n";
  out += "latency (ms): p50 " + fixed(num(doc, "/latency/p50", 0), 3) + "  p90 " + fixed(num(doc, "/latency/p90", 0), 3) + "  p99 " +
         fixed(num(doc, "/latency/p99", 0), 3) + "  p99.9 " + fixed(num(doc, "/latency/p999", 0), 3) + "  max " +
         fixed(num(doc, "/latency/max", 0), 3) + "\n";
  out += "lost " + thousands(count(doc, "/totals/lost")) + "  duplicated " + thousands(count(doc, "/totals/duplicated")) +
         "  reordered " + thousands(count(doc, "/totals/reordered")) + "  misdelivered " + thousands(count(doc, "/totals/misdelivered")) +
         "  altered " + thousands(count(doc, "/totals/invalid")) + "  errors " + thousands(count(doc, "/totals/errors")) +
         "  connection failures " + thousands(count(doc, "/totals/connection_failures")) + "\n";
  if (count(doc, "/totals/unsent") > 0) {
    out += "not sent: " + thousands(count(doc, "/totals/unsent")) + " messages were due when the run ended (the target held the sender back)\n";
  }
  const Json& errors = at(doc, "/errors");
  if (errors.is_object() && !errors.empty()) {
    out += "errors by code:";
    std::size_t shown = 0;
    for (const auto& [code, n] : errors.items()) {
      if (shown++ == 20) break;
      out += " " + truncate_utf8(code, 80) + " x" + (n.is_number() ? thousands(n.get<std::uint64_t>()) : std::string("?"));
    }
    out += "\n";
  }
  for (const char* kind : {"connection_failures", "invalid", "unexpected"}) {
    const Json& ex = doc.contains("examples") && doc["examples"].is_object() ? doc["examples"].value(kind, Json()) : Json();
    if (!ex.is_array()) continue;
    std::size_t shown = 0;
    for (const auto& e : ex) {
      if (shown++ == 3) break;
      out += std::string("  ") + kind + ": " + (e.is_string() ? truncate_utf8(e.get<std::string>(), 300) : std::string()) + "\n";
    }
  }
  const Json& reasons = at(doc, "/verdict/reasons");
  out += std::string("verdict: ") + (passed ? "PASS" : "FAIL");
  if (reasons.is_array()) {
    for (const auto& r : reasons) out += "\n  " + (r.is_string() ? truncate_utf8(r.get<std::string>(), 300) : std::string());
  }
  out += "\n";
  return terminal_safe(out, true);
}

std::string render_load_markdown(const Json& doc) {
  std::string out = "# agentconform load: " + md_escape(str(doc, "/protocol", 32)) + "\n\n";
  const bool passed = at(doc, "/verdict/passed") == true;
  out += std::string("**") + (passed ? "PASS" : "FAIL") + "** against " + md_escape(str(doc, "/target/url", 300)) + " (" +
         md_escape(str(doc, "/target/kind", 32)) + "), " + md_escape(str(doc, "/options/mode", 32)) + ", " +
         thousands(count(doc, "/options/agents")) + " agents, " + thousands(count(doc, "/options/message_size")) + "-byte messages, " +
         fixed(num(doc, "/options/duration_s", 0), 1) + " s; machine: " + thousands(count(doc, "/machine/nproc")) + " cores, " +
         md_escape(str(doc, "/machine/cpu", 200)) + "\n\n";
  out += "| figure | value |\n|---|---:|\n";
  auto row = [&](const std::string& name, const std::string& value) { out += "| " + name + " | " + value + " |\n"; };
  row("sent", thousands(count(doc, "/totals/sent")));
  row("delivered", thousands(count(doc, "/totals/delivered")));
  row("throughput (msg/s)", thousands(static_cast<std::uint64_t>(num(doc, "/totals/throughput", 0))));
  for (const char* q : {"p50", "p90", "p99", "p999", "max", "mean"}) {
    row(std::string("latency ") + (std::string(q) == "p999" ? "p99.9" : q) + " (ms)", fixed(num(doc, (std::string("/latency/") + q).c_str(), 0), 3));
  }
  for (const char* k : {"lost", "duplicated", "reordered", "misdelivered", "invalid", "errors", "connection_failures", "unsent"}) {
    row(k, thousands(count(doc, (std::string("/totals/") + k).c_str())));
  }
  out += "\n## Checks\n\n| check | result | detail |\n|---|---|---|\n";
  for (const auto& c : checks(doc)) out += "| " + md_escape(c.name) + " | " + (c.ok ? "PASS" : "**FAIL**") + " | " + md_escape(c.detail) + " |\n";
  const Json& errors = at(doc, "/errors");
  if (errors.is_object() && !errors.empty()) {
    out += "\n## Errors by code\n\n| code | count |\n|---|---:|\n";
    std::size_t shown = 0;
    for (const auto& [code, n] : errors.items()) {
      if (shown++ == 50) break;
      out += "| " + md_escape(truncate_utf8(code, 120)) + " | " + (n.is_number() ? thousands(n.get<std::uint64_t>()) : std::string()) + " |\n";
    }
  }
  out += "\nThe latency histogram and the throughput over time are in report.html.\n";
  return out;
}

std::string render_load_junit(const Json& doc) {
  const auto list = checks(doc);
  std::size_t failures = 0;
  for (const auto& c : list) failures += c.ok ? 0 : 1;
  const std::string suite = "load." + str(doc, "/protocol", 32);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"agentconform load\" tests=\"" + std::to_string(list.size()) + "\" failures=\"" + std::to_string(failures) +
         "\" errors=\"0\" time=\"" + fixed(num(doc, "/totals/traffic_s", 0), 3) + "\">\n";
  out += "  <testsuite name=\"" + xml_escape(suite, true) + "\" tests=\"" + std::to_string(list.size()) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"0\" skipped=\"0\" time=\"" + fixed(num(doc, "/totals/traffic_s", 0), 3) + "\">\n";
  out += "    <properties>\n";
  for (const auto& [k, p] : std::vector<std::pair<std::string, std::string>>{
           {"target", str(doc, "/target/url", 300)}, {"mode", str(doc, "/options/mode", 32)},
           {"agents", str(doc, "/options/agents", 32)}, {"throughput", fixed(num(doc, "/totals/throughput", 0), 1)},
           {"p99_ms", fixed(num(doc, "/latency/p99", 0), 3)}}) {
    out += "      <property name=\"" + xml_escape(k, true) + "\" value=\"" + xml_escape(p, true) + "\"/>\n";
  }
  out += "    </properties>\n";
  for (const auto& c : list) {
    out += "    <testcase classname=\"" + xml_escape(suite, true) + "\" name=\"" + xml_escape(c.name, true) + "\" time=\"0\">";
    if (!c.ok) out += "\n      <failure message=\"" + xml_escape(c.detail, true) + "\" type=\"load\">" + xml_escape(c.detail) + "</failure>\n    ";
    out += "</testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

Expected<std::vector<std::filesystem::path>, std::string> write_load_reports(const std::filesystem::path& dir,
                                                                             const std::vector<Format>& formats, const Json& doc) {
  std::vector<std::filesystem::path> written;
  if (formats.empty()) return written;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return unexpected("cannot create " + dir.string() + ": " + ec.message());
  for (Format f : formats) {
    std::string text;
    switch (f) {
      case Format::json: text = render_load_json(doc); break;
      case Format::junit: text = render_load_junit(doc); break;
      case Format::html: text = render_load_html(doc); break;
      case Format::md: text = render_load_markdown(doc); break;
    }
    const auto path = dir / file_name(f);
    if (auto w = write_text_file(path, text); !w) return unexpected(w.error());
    written.push_back(path);
  }
  return written;
}

}  // namespace ac::reports

// The writers on hand-built result sets: the JSON report validates against
// schemas/report.schema.json and reads back; every verdict appears where it should in JUnit, HTML
// and Markdown; hostile strings from a target's frames are escaped (no HTML/XML injection);
// huge transcripts are truncated with a note; the escaping helpers hold for any input.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cctype>
#include <functional>

#include "harness/schema/schema_store.hpp"
#include "reports/report.hpp"
#include "reports/text.hpp"
#include "tests/reports/report_fixture.hpp"
#include "tests/reports/run_state_fixture.hpp"

namespace ac::reports::testing {
namespace {

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

const schema::SchemaStore& store() {
  static const auto s = [] {
    auto r = schema::SchemaStore::load_directory(std::filesystem::path(AC_SOURCE_DIR) / "schemas");
    if (!r) throw std::runtime_error(r.error());
    return *r;
  }();
  return *s;
}

std::string violations(const schema::CompiledSchema& s, const Json& doc) {
  std::string out;
  for (const auto& v : s.validate(doc)) out += v.pointer + " " + v.rule + ": " + v.message + "\n";
  return out;
}

TEST(JsonReport, ValidatesAgainstThePublishedSchemaWithAndWithoutGate) {
  const auto* schema = store().find("report.schema.json");
  ASSERT_NE(schema, nullptr);
  const Json doc = every_verdict_doc();
  const Json plain = Json::parse(render_json(doc, nullptr));
  EXPECT_TRUE(schema->is_valid(plain)) << violations(*schema, plain);

  const Gate gate = evaluate(doc, nullptr, Policy::must, "2025-02-01");
  const Json gated = Json::parse(render_json(doc, &gate));
  EXPECT_TRUE(schema->is_valid(gated)) << violations(*schema, gated);
  EXPECT_EQ(gated["gate"]["exit_code"], 1);
  ASSERT_EQ(gated["gate"]["new_failures"].size(), 1u);
  EXPECT_EQ(gated["gate"]["new_failures"][0]["id"], "CHOP-VER-002");

  // It is still a results file: the engine reads it back, every case and its evidence intact.
  auto back = engine::run_result_from_json(gated);
  ASSERT_TRUE(back) << back.error();
  ASSERT_EQ(back->cases.size(), 6u);
  EXPECT_EQ(back->cases[1].verdict, Verdict::fail);
  ASSERT_TRUE(back->cases[1].failed_step.has_value());
  EXPECT_EQ(back->cases[1].failed_step->actual, "close 1000 " + kHostileXml);
}

TEST(JsonReport, SchemaRejectsWhatTheHarnessNeverWrites) {
  const auto* schema = store().find("report.schema.json");
  ASSERT_NE(schema, nullptr);
  Json doc = every_verdict_doc();
  Json bad_verdict = doc;
  bad_verdict["cases"][0]["verdict"] = "MAYBE";
  EXPECT_FALSE(schema->is_valid(bad_verdict));
  Json bad_direction = doc;
  bad_direction["cases"][0]["transcript"][0]["direction"] = "sideways";
  EXPECT_FALSE(schema->is_valid(bad_direction));
  Json missing = doc;
  missing.erase("seed");
  EXPECT_FALSE(schema->is_valid(missing));
}

// What `run` writes since issue 11 (engine::to_json, with the gate as `run` sets it): a setup
// error (no case, exit 3), an interrupted run (exit 130), a target that stopped answering, and a
// run with blame, readings, coverage, N/A and root-cause groups; each still reads back.
TEST(JsonReport, RunStateDocumentsValidate) {
  const auto* schema = store().find("report.schema.json");
  ASSERT_NE(schema, nullptr);
  for (const Json& doc : {setup_error_doc(), interrupted_doc(), target_down_doc(), rich_doc(), rich_doc(true)}) {
    const Json written = Json::parse(render_json(doc, nullptr));
    EXPECT_TRUE(schema->is_valid(written)) << violations(*schema, written);
    auto back = engine::run_result_from_json(written);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->cases.size(), written["cases"].size());
  }
  EXPECT_EQ(setup_error_doc()["setup_error"].get<std::string>().rfind("chopsticks: paths.ws: ", 0), 0u);
  EXPECT_EQ(interrupted_doc()["gate"]["exit_code"], 130);
  const Json rich = rich_doc();
  EXPECT_EQ(rich["cases"][1]["blamed"], Json::array({"CHOP-versioning-validate"}));
  EXPECT_EQ(rich["cases"][2]["reading"], true);
}

TEST(JsonReport, SchemaRejectsMistypedRunStateMembers) {
  const auto* schema = store().find("report.schema.json");
  ASSERT_NE(schema, nullptr);
  const Json good = rich_doc();
  ASSERT_TRUE(schema->is_valid(good)) << violations(*schema, good);
  auto bad = [&](const std::function<void(Json&)>& edit) {
    Json d = good;
    edit(d);
    return !schema->is_valid(d);
  };
  EXPECT_TRUE(bad([](Json& d) { d["setup_error"] = 3; }));
  EXPECT_TRUE(bad([](Json& d) { d["interrupted"] = ""; }));
  EXPECT_TRUE(bad([](Json& d) { d["target_down"] = {{"protocol", "x"}}; }));
  EXPECT_TRUE(bad([](Json& d) { d["preflight"] = {{"alp", {{"ok", true}, {"checks", {{{"check", "x"}, {"status", "maybe"}, {"detail", ""}}}}}}}; }));
  EXPECT_TRUE(bad([](Json& d) { d["coverage"]["must"]["percent"] = 150; }));
  EXPECT_TRUE(bad([](Json& d) { d["coverage"]["untested"][0].erase("reason"); }));
  EXPECT_TRUE(bad([](Json& d) { d["not_applicable"][0]["count"] = 0; }));
  EXPECT_TRUE(bad([](Json& d) { d["root_causes"][0]["cases"] = "ALP-RC-001"; }));
  EXPECT_TRUE(bad([](Json& d) { d["cases"][1]["blamed"] = "CHOP-versioning-validate"; }));
  EXPECT_TRUE(bad([](Json& d) { d["cases"][2]["reading"] = "yes"; }));
  EXPECT_TRUE(bad([](Json& d) { d["gate"]["exit_code"] = 4; }));
}

TEST(BaselineSchema, AcceptsWhatUpdateWritesAndRejectsBadDates) {
  const auto* schema = store().find("baseline.schema.json");
  ASSERT_NE(schema, nullptr);
  const Baseline b = update_baseline(nullptr, every_verdict_doc(), Policy::should, "2025-02-01");
  const Json doc = to_json(b, "2025-02-01T00:00:00Z");
  EXPECT_TRUE(schema->is_valid(doc)) << violations(*schema, doc);
  Json bad = doc;
  bad["entries"][0]["expires"] = "31/12/2025";
  EXPECT_FALSE(schema->is_valid(bad));
  EXPECT_FALSE(baseline_from_json(bad).has_value());
}

TEST(JunitReport, OneSuitePerProtocolAndSuiteWithEveryOutcome) {
  const std::string xml = render_junit(every_verdict_doc());
  EXPECT_EQ(count(xml, "<testsuite "), 3u);  // chopsticks.version-rejection, chopsticks.handshake, alp.lifecycle
  EXPECT_NE(xml.find("name=\"chopsticks.version-rejection\""), std::string::npos);
  EXPECT_EQ(count(xml, "<testcase "), 6u);
  EXPECT_EQ(count(xml, "<failure "), 1u);
  EXPECT_EQ(count(xml, "<error "), 1u);
  EXPECT_EQ(count(xml, "<skipped "), 1u);
  // WARN passes but is visible: a suite property and the case's system-out.
  EXPECT_NE(xml.find("<property name=\"warn:CHOP-VER-003\" value=\"reason of CHOP-VER-003\"/>"), std::string::npos);
  EXPECT_NE(xml.find("WARN: reason of CHOP-VER-003"), std::string::npos);
  // The failure quotes the requirement's sentence from the catalogue, expected and actual.
  const auto* req = catalog().find("CHOP-versioning-reject-incompatible");
  ASSERT_NE(req, nullptr);
  EXPECT_NE(xml.find(xml_escape(req->text)), std::string::npos);
  EXPECT_NE(xml.find("expected: close 1008"), std::string::npos);
  EXPECT_NE(xml.find("type=\"MUST\""), std::string::npos);
  EXPECT_NE(xml.find("tests=\"6\" failures=\"1\" errors=\"1\" skipped=\"1\""), std::string::npos);
}

TEST(JunitReport, HostileStringsCannotAddElements) {
  const std::string xml = render_junit(every_verdict_doc());
  EXPECT_EQ(xml.find("<testcase name=\"injected\""), std::string::npos);
  EXPECT_EQ(xml.find("<script>"), std::string::npos);
  EXPECT_EQ(xml.find('\x01'), std::string::npos);  // not an XML 1.0 character, even escaped
  EXPECT_NE(xml.find("&lt;testcase name=&quot;injected&quot;/&gt;&amp;amp;"), std::string::npos);
  EXPECT_NE(xml.find(kUnicode), std::string::npos);  // unicode kept as is
}

TEST(HtmlReport, SelfContainedWithEveryCaseAndTheEvidence) {
  const Json doc = every_verdict_doc();
  const std::string html = render_html({{"run", doc}});
  // No network: nothing is loaded from anywhere, and the CSP forbids it anyway.
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  const std::size_t csp = html.find("script-src 'sha256-");
  ASSERT_NE(csp, std::string::npos);
  EXPECT_EQ(html.substr(csp + 19 + 43, 2), "='");  // base64 of a SHA-256: 43 characters and a pad
  for (const char* id : {"CHOP-VER-001", "CHOP-VER-002", "CHOP-VER-003", "CHOP-HS-001", "CHOP-HS-002", "ALP-LC-001"}) {
    EXPECT_NE(html.find(std::string("id=\"case-") + id + "\""), std::string::npos) << id;
  }
  for (const char* v : {"PASS", "FAIL", "WARN", "NOT_APPLICABLE", "ERROR"}) {
    EXPECT_NE(html.find(std::string("data-verdict=\"") + v + "\""), std::string::npos) << v;
  }
  // Coverage matrix: the requirement of the failing case with its status and case link.
  EXPECT_NE(html.find("data-status=\"FAIL\""), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#case-CHOP-VER-002\">CHOP-VER-002</a>"), std::string::npos);
  // Transcript rows coloured by direction, failing case open.
  EXPECT_GT(count(html, "<tr class=\"dir-in\">"), 0u);
  EXPECT_GT(count(html, "<tr class=\"dir-out\">"), 0u);
  EXPECT_GT(count(html, "<tr class=\"dir-note\">"), 0u);
  EXPECT_NE(html.find("id=\"case-CHOP-VER-002\" data-verdict=\"FAIL\""), std::string::npos);
  EXPECT_NE(html.find("<pre class=\"expected\">close 1008</pre>"), std::string::npos);
  // The case's steps, the failing one (3) marked.
  EXPECT_NE(html.find("<summary>Steps (3)</summary>"), std::string::npos);
  EXPECT_NE(html.find("<li class=\"step failed-step\"><code>{&quot;close&quot;:1008,&quot;expect&quot;:&quot;agent&quot;"),
            std::string::npos);
  EXPECT_EQ(count(html, "failed-step\""), 1u);
}

TEST(HtmlReport, HostileStringsAreEscaped) {
  const std::string html = render_html({{"run <b>label</b>", every_verdict_doc()}, {"second", every_verdict_doc()}});
  EXPECT_EQ(html.find(kHostileScript), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>label</b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;img id=&quot;pwned&quot;"), std::string::npos);
  EXPECT_NE(html.find(kUnicode), std::string::npos);
  EXPECT_NE(html.find("run &lt;b&gt;label&lt;/b&gt;"), std::string::npos);
  // Exactly one script element: the template's.
  EXPECT_EQ(count(html, "<script"), 1u);
}

TEST(HtmlReport, SeveralResultFilesSideBySide) {
  Json a = every_verdict_doc();
  RunResult changed = every_verdict();
  changed.cases[1].verdict = Verdict::pass;  // CHOP-VER-002 fixed in the second implementation
  changed.cases.pop_back();                   // ALP-LC-001 not run there
  Json b = engine::to_json(changed, catalog());
  const std::string html = render_html({{"impl-a.json", a}, {"impl-b.json", b}});
  EXPECT_NE(html.find("id=\"side-by-side\""), std::string::npos);
  EXPECT_NE(html.find("<th>impl-a.json</th><th>impl-b.json</th>"), std::string::npos);
  EXPECT_EQ(count(html, "class=\"filter-row cmp-row differs\""), 2u);  // CHOP-VER-002 and ALP-LC-001
  EXPECT_EQ(count(html, "class=\"filter-row cmp-row\""), 4u);
  EXPECT_NE(html.find("id=\"s1-case-CHOP-VER-002\""), std::string::npos);
  EXPECT_NE(html.find("not run"), std::string::npos);
}

TEST(Truncation, HugeTranscriptsAreCutWithANote) {
  const Json doc = huge_transcript_doc(5000, 10000);  // 50 MB of frames in one case
  Limits limits;
  const std::string html = render_html({{"run", doc}}, limits);
  EXPECT_LT(html.size(), 2u << 20);
  EXPECT_NE(html.find("transcript truncated for this report"), std::string::npos);
  EXPECT_NE(html.find("more bytes not shown"), std::string::npos);
  const std::string xml = render_junit(doc, limits);
  EXPECT_LT(xml.size(), 2u << 20);
  EXPECT_NE(xml.find("transcript truncated for this report"), std::string::npos);

  const auto t = bound_transcript(&doc["cases"][1]["transcript"], limits);
  EXPECT_EQ(t.total_entries, 5000u);
  std::size_t bytes = 0;
  for (const auto& e : t.entries) bytes += e.data.size();
  EXPECT_LE(bytes, limits.case_transcript_bytes + t.entries.size() * 64);  // data plus the cut notes
}

TEST(Truncation, PassingTranscriptsStopAtTheReportBudgetFailingOnesNever) {
  Json doc = every_verdict_doc();
  Limits limits;
  limits.report_transcript_bytes = 10;  // spent by the first passing case
  const std::string html = render_html({{"run", doc}}, limits);
  EXPECT_NE(html.find("transcript omitted: the report's size budget"), std::string::npos);
  EXPECT_NE(html.find("&lt;img id=&quot;pwned&quot;"), std::string::npos);  // the FAIL's transcript is there
}

TEST(MarkdownReport, ConformancePerProtocolFailedMustsAndGate) {
  const Json doc = every_verdict_doc();
  Baseline b;
  b.entries.push_back({"ALP-LC-001", "alp", "FAIL", "known", "", ""});  // passes now: fixed
  Json with_gate = doc;
  with_gate["gate"] = to_json(evaluate(doc, &b, Policy::must, "2025-02-01"));
  with_gate["gate"]["baseline"] = "baseline.json";
  const std::string md = render_markdown(with_gate);
  EXPECT_NE(md.find("**FAILED** (exit code 1)"), std::string::npos);
  EXPECT_NE(md.find("| chopsticks |"), std::string::npos);
  EXPECT_NE(md.find("| alp |"), std::string::npos);
  EXPECT_NE(md.find("### Failed MUST requirements (1)"), std::string::npos);
  EXPECT_NE(md.find("**CHOP-versioning-reject-incompatible**"), std::string::npos);
  EXPECT_NE(md.find("[CHOP-VER-002](report.html#case-CHOP-VER-002)"), std::string::npos);
  EXPECT_NE(md.find("### Regressions against the baseline"), std::string::npos);
  EXPECT_NE(md.find("**New failures** (1)"), std::string::npos);
  EXPECT_NE(md.find("**Fixed but still baselined"), std::string::npos);
  EXPECT_NE(md.find("[ALP-LC-001](report.html#case-ALP-LC-001)"), std::string::npos);
}

TEST(MarkdownReport, TargetStringsCannotInjectMarkupOrBreakTables) {
  RunResult r = every_verdict();
  r.target["url"] = "ws://x/|<img src=x>|[link](http://evil)";
  const std::string md = render_markdown(engine::to_json(r, catalog()));
  EXPECT_EQ(md.find("<img"), std::string::npos);
  EXPECT_EQ(md.find("[link](http"), std::string::npos);
  EXPECT_NE(md.find("\\|&lt;img src=x&gt;\\|\\[link\\]\\(http://evil\\)"), std::string::npos);
}

TEST(WriteReports, WritesTheSelectedFormatsOnly) {
  TempDir dir;
  auto formats = parse_formats("md,junit");
  ASSERT_TRUE(formats);
  auto written = write_reports(dir / "out", *formats, {{"run", every_verdict_doc()}}, nullptr);
  ASSERT_TRUE(written) << written.error();
  EXPECT_EQ(written->size(), 2u);
  EXPECT_TRUE(std::filesystem::exists(dir / "out/summary.md"));
  EXPECT_TRUE(std::filesystem::exists(dir / "out/junit.xml"));
  EXPECT_FALSE(std::filesystem::exists(dir / "out/report.html"));
  EXPECT_FALSE(parse_formats("junit,pdf"));
  EXPECT_EQ(parse_formats("all")->size(), 4u);
  EXPECT_TRUE(parse_formats("none")->empty());
}

TEST(WriteReports, OddDocumentsDoNotThrow) {
  for (const char* text : {R"({"format":"agentconform-results/1","cases":[1,"x",{"id":5,"verdict":[],"transcript":{}}]})",
                           R"({"format":"agentconform-results/1","cases":[{"transcript":[1,{"data":7,"t_ms":"x","code":1.5}]}],
                               "requirements":[3,{"cases":[1]}],"protocols":{"":7},"gate":{"new_failures":[1]}})"}) {
    const Json doc = Json::parse(text);
    EXPECT_NO_THROW({
      render_html({{"x", doc}});
      render_junit(doc);
      render_markdown(doc);
      evaluate(doc, nullptr, Policy::must, "2025-01-01");
    }) << text;
  }
}

// The escaping helpers, for any bytes.
RC_GTEST_PROP(Escaping, HtmlOutputIsValidUtf8WithoutMarkup, (const std::string& s)) {
  const std::string out = html_escape(s);
  RC_ASSERT(out.find('<') == std::string::npos);
  RC_ASSERT(out.find('>') == std::string::npos);
  RC_ASSERT(out.find('"') == std::string::npos);
  RC_ASSERT(valid_utf8(out) == out);
}

RC_GTEST_PROP(Escaping, XmlOutputHasOnlyXmlCharacters, (const std::string& s)) {
  const std::string out = xml_escape(s, true);
  RC_ASSERT(out.find('<') == std::string::npos);
  for (unsigned char c : out) RC_ASSERT(c >= 0x20);  // tab, LF, CR are character references in attributes
  RC_ASSERT(valid_utf8(out) == out);
}

RC_GTEST_PROP(Escaping, TruncationNeverSplitsACodePoint, (const std::string& s, std::size_t n)) {
  const std::string v = valid_utf8(s);
  const std::string cut = truncate_utf8(v, n % (v.size() + 1));
  RC_ASSERT(cut.size() <= v.size());
  RC_ASSERT(valid_utf8(cut) == cut);
  RC_ASSERT(v.compare(0, cut.size(), cut) == 0);
}

RC_GTEST_PROP(Escaping, AnchorsAreSafeAndInjective, (const std::string& a, const std::string& b)) {
  const std::string x = anchor(a);
  for (char c : x) RC_ASSERT((std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_'));
  if (a != b) RC_ASSERT(x != anchor(b));
}

TEST(Escaping, TerminalOutputHasNoEscapeSequences) {
  EXPECT_EQ(terminal_safe("a\x1b[2Jb\n\xC2\x9B"), "a\\x1b[2Jb\\n\\u009b");
  EXPECT_EQ(terminal_safe("line1\nline2", true), "line1\nline2");
}

}  // namespace
}  // namespace ac::reports::testing

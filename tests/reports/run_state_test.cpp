// Issue 11 in every report format: a setup error is one clear message and no FAIL anywhere; an
// interrupted run and a target that stopped answering are said first, with the cases named; MUST
// coverage, N/A by reason and root causes are shown; a failure shows the requirements it blames
// (readings marked and listed apart), not every requirement of its case. Hostile strings in the
// new members are escaped in every format (and the JUnit still validates against its XSD), odd
// types never make a writer throw, and documents without the new members still render.
#include <gtest/gtest.h>

#include "harness/schema/schema_store.hpp"
#include "reports/compare.hpp"
#include "reports/report.hpp"
#include "reports/text.hpp"
#include "tests/reports/run_state_fixture.hpp"

namespace ac::reports::testing {
namespace {

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

// The text between the first occurrence of `from` and the next occurrence of `to` after it.
std::string between(const std::string& hay, const std::string& from, const std::string& to) {
  const std::size_t a = hay.find(from);
  if (a == std::string::npos) return {};
  const std::size_t b = hay.find(to, a + from.size());
  return hay.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

const schema::CompiledSchema& report_schema() {
  static const auto store = [] {
    auto r = schema::SchemaStore::load_directory(std::filesystem::path(AC_SOURCE_DIR) / "schemas");
    if (!r) throw std::runtime_error(r.error());
    return *r;
  }();
  const auto* s = store->find("report.schema.json");
  if (!s) throw std::runtime_error("report.schema.json not found");
  return *s;
}

std::string violations(const Json& doc) {
  std::string out;
  for (const auto& v : report_schema().validate(doc)) out += v.pointer + " " + v.rule + ": " + v.message + "\n";
  return out;
}

// xmllint against reports/junit/junit.xsd; "" when valid.
std::string xsd_errors(const std::string& xml) {
  if (!on_path("xmllint")) return "xmllint not installed (Debian package libxml2-utils; run scripts/setup.sh)";
  TempDir dir;
  spit(dir / "junit.xml", xml);
  const Process p = run_process({"xmllint", "--noout", "--schema", std::string(AC_SOURCE_DIR) + "/reports/junit/junit.xsd",
                                 (dir / "junit.xml").string()},
                                dir.path());
  return p.exit_code == 0 ? std::string() : p.err;
}

// ---- Setup error ----

TEST(SetupErrorReports, JsonValidatesAndSaysSetupError) {
  const Json doc = Json::parse(render_json(setup_error_doc(), nullptr));
  EXPECT_TRUE(report_schema().is_valid(doc)) << violations(doc);
  EXPECT_EQ(doc["gate"]["exit_code"], 3);
  EXPECT_TRUE(doc["cases"].empty());
}

TEST(SetupErrorReports, HtmlShowsTheCheckAndFixAndNoVerdict) {
  const std::string html = render_html({{"run", setup_error_doc()}});
  const std::string banner = between(html, "<div class=\"banner setup-error\"", "</div>");
  ASSERT_FALSE(banner.empty());
  EXPECT_TRUE(has(banner, "Setup error: no case ran.")) << banner;
  EXPECT_TRUE(has(banner, "<code>" + kSetupCheck + "</code>")) << banner;
  EXPECT_TRUE(has(banner, html_escape(kSetupDetail))) << banner;
  EXPECT_TRUE(has(banner, "<pre class=\"fix\">" + html_escape(kSetupFix) + "</pre>")) << banner;
  // The preflight checklist is open (it failed), its failed row marked, its transcript offered.
  EXPECT_TRUE(has(html, "<details class=\"preflight-block\" id=\"preflight\" open>"));
  EXPECT_TRUE(has(html, "<tr class=\"pf-row pf-row-failed\"><td><code>paths.ws</code>"));
  EXPECT_TRUE(has(html, "The probes' transcript (2 entries)"));
  // Nothing that reads like a verdict: no verdict badge, no case, no summary table, no filters.
  EXPECT_EQ(count(html, "class=\"badge b-"), 0u);
  EXPECT_FALSE(has(html, "data-verdict=\""));
  EXPECT_FALSE(has(html, "<table class=\"summary\""));
  EXPECT_FALSE(has(html, ">conformant<"));
  EXPECT_TRUE(has(html, "<nav id=\"filters\" aria-label=\"filters\" hidden>"));
  EXPECT_TRUE(has(html, "<b>exit code 3</b>"));
}

TEST(SetupErrorReports, JunitIsOnePreflightErrorAndValidates) {
  const std::string xml = render_junit(setup_error_doc());
  EXPECT_TRUE(has(xml, "<testsuites name=\"agentconform\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\"")) << xml;
  EXPECT_EQ(count(xml, "<testcase "), 1u);
  EXPECT_TRUE(has(xml, "<testcase name=\"preflight\" classname=\"chopsticks.preflight\""));
  EXPECT_EQ(count(xml, "<error "), 1u);
  EXPECT_EQ(count(xml, "<failure"), 0u);
  EXPECT_TRUE(has(xml, "message=\"setup error: paths.ws: " + xml_escape(kSetupDetail, true) + " (fix: " + xml_escape(kSetupFix, true) + ")\""))
      << xml;
  EXPECT_TRUE(has(xml, "<property name=\"setup_error\""));
  EXPECT_EQ(xsd_errors(xml), "");
}

TEST(SetupErrorReports, MarkdownLeadsWithTheFixAndNeverSaysFail) {
  const std::string md = render_markdown(setup_error_doc());
  EXPECT_FALSE(has(md, "FAIL")) << md;
  EXPECT_FALSE(has(md, "| protocol |")) << md;  // no table of zeros
  const std::size_t banner = md.find("> **Setup error: no case ran.**");
  ASSERT_NE(banner, std::string::npos) << md;
  EXPECT_LT(banner, md.find("**SETUP ERROR** (exit code 3)")) << md;
  EXPECT_TRUE(has(md, "> - check `" + md_escape(kSetupCheck) + "` (chopsticks): " + md_escape(kSetupDetail))) << md;
  EXPECT_TRUE(has(md, "> - **fix:** " + md_escape(kSetupFix))) << md;
}

TEST(SetupErrorReports, WithoutAPreflightMemberTheMessageStillShows) {
  Json doc = setup_error_doc();
  doc.erase("preflight");
  const std::string html = render_html({{"run", doc}});
  EXPECT_TRUE(has(between(html, "<div class=\"banner setup-error\"", "</div>"), html_escape(kSetupFix)));
  const std::string xml = render_junit(doc);
  EXPECT_TRUE(has(xml, "<testcase name=\"preflight\" classname=\"preflight\""));
  EXPECT_EQ(count(xml, "<error "), 1u);
  EXPECT_EQ(xsd_errors(xml), "");
  EXPECT_TRUE(has(render_markdown(doc), md_escape(kSetupFix)));
}

// ---- Interrupted ----

TEST(InterruptedReports, EveryFormatSaysSoFirstAndSkipsWhatDidNotRun) {
  const Json doc = interrupted_doc();
  const Json json = Json::parse(render_json(doc, nullptr));
  EXPECT_TRUE(report_schema().is_valid(json)) << violations(json);

  const std::string html = render_html({{"run", doc}});
  const std::string banner = between(html, "<div class=\"banner interrupted\"", "</div>");
  EXPECT_TRUE(has(banner, "Interrupted by SIGINT.")) << banner;
  EXPECT_TRUE(has(banner, "covers the 3 cases that ran; 2 cases were not run")) << banner;
  EXPECT_LT(html.find("banner interrupted"), html.find("<h3>Summary per protocol")) << "the banner comes before the tables";
  // The passing preflight is collapsed.
  EXPECT_TRUE(has(html, "<details class=\"preflight-block\" id=\"preflight\"><summary>"));

  const std::string xml = render_junit(doc);
  EXPECT_EQ(count(xml, "<skipped message=\"not run: the run was interrupted\"/>"), 2u) << xml;
  EXPECT_EQ(count(xml, "<skipped message=\"step 2: interrupted before this step\"/>"), 1u) << xml;
  EXPECT_EQ(count(xml, "<error "), 0u) << xml;
  EXPECT_EQ(count(xml, "<failure "), 1u);
  EXPECT_TRUE(has(xml, "<property name=\"interrupted\" value=\"SIGINT\"/>"));
  EXPECT_EQ(xsd_errors(xml), "");

  const std::string md = render_markdown(doc);
  const std::size_t banner_at = md.find("> **Interrupted by SIGINT.** These reports cover the 3 cases that ran; 2 were not run.");
  ASSERT_NE(banner_at, std::string::npos) << md;
  EXPECT_LT(banner_at, md.find("**INTERRUPTED** (exit code 130)")) << md;
  EXPECT_LT(banner_at, md.find("| protocol |")) << md;
}

// ---- Target down ----

TEST(TargetDownReports, NameTheCasesWithLinks) {
  const Json doc = target_down_doc();
  const Json json = Json::parse(render_json(doc, nullptr));
  EXPECT_TRUE(report_schema().is_valid(json)) << violations(json);

  const std::string html = render_html({{"run", doc}});
  const std::string banner = between(html, "<div class=\"banner target-down\"", "</div>");
  EXPECT_TRUE(has(banner, "The target stopped answering</b> (chopsticks): first noticed during <a href=\"#case-CHOP-VER-002\">CHOP-VER-002</a>"))
      << banner;
  EXPECT_TRUE(has(banner, "the last case it completed: <a href=\"#case-CHOP-VER-001\">CHOP-VER-001</a>")) << banner;
  EXPECT_TRUE(has(banner, "2 cases were not run")) << banner;

  const std::string xml = render_junit(doc);
  EXPECT_EQ(count(xml, "<error "), 3u);  // the target's fault, not an interrupt: errors, not skips
  EXPECT_EQ(count(xml, "<skipped"), 0u);
  EXPECT_TRUE(has(xml, "<property name=\"target_down\" value=\"chopsticks: first noticed in CHOP-VER-002, last completed CHOP-VER-001\"/>"));
  EXPECT_EQ(xsd_errors(xml), "");

  const std::string md = render_markdown(doc);
  EXPECT_TRUE(has(md, "> **The target stopped answering** (chopsticks): first noticed during [CHOP-VER-002](report.html#case-CHOP-VER-002); "
                      "the last case it completed: [CHOP-VER-001](report.html#case-CHOP-VER-001); 2 cases were not run."))
      << md;
}

// ---- Coverage, groups, blame and readings ----

TEST(RunReports, HtmlShowsCoverageGroupsAndBlame) {
  const Json doc = rich_doc();
  const Json json = Json::parse(render_json(doc, nullptr));
  EXPECT_TRUE(report_schema().is_valid(json)) << violations(json);
  const std::string html = render_html({{"run", doc}});

  // MUST coverage as the document states it, per protocol, with the untested MUSTs and why.
  const Json& must = doc["coverage"]["must"];
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f", must["percent"].get<double>());
  const std::string line = std::to_string(must["tested"].get<int>()) + " of " + std::to_string(must["applicable"].get<int>()) + " (" + pct + "%)";
  EXPECT_TRUE(has(html, "<p class=\"coverage-line\"><b>" + line + "</b>")) << line;
  EXPECT_TRUE(has(html, "<tr class=\"filter-row\" data-protocol=\"alp\" data-text=\"alp coverage\">"));
  ASSERT_FALSE(doc["coverage"]["untested"].empty());
  EXPECT_TRUE(has(html, "<details class=\"untested\"><summary>" + std::to_string(doc["coverage"]["untested"].size()) + " untested MUSTs"));
  EXPECT_TRUE(has(html, html_escape(doc["coverage"]["untested"][0]["reason"].get<std::string>())));

  // Root causes and N/A by reason, largest group first, with links.
  const std::string rc = between(html, "<h3 id=\"root-causes\">", "</table>");
  EXPECT_TRUE(has(rc, "Root causes (3 cases)")) << rc;
  EXPECT_TRUE(has(rc, html_escape(kRootCause))) << rc;
  for (const char* id : {"ALP-RC-001", "ALP-RC-002", "ALP-RC-003"}) EXPECT_TRUE(has(rc, std::string("<a href=\"#case-") + id + "\">")) << id;
  const std::string na = between(html, "<h3 id=\"not-applicable\">", "</table>");
  EXPECT_TRUE(has(na, "Not applicable, by reason (4 cases)")) << na;
  ASSERT_TRUE(has(na, html_escape(kFeatureCause)) && has(na, html_escape(kRoleCause))) << na;
  EXPECT_LT(na.find(html_escape(kFeatureCause)), na.find(html_escape(kRoleCause)));
  EXPECT_TRUE(has(na, "<td class=\"num\">3</td>")) << na;

  // The failed case blames the requirement of its failing step; the reading it never reached is apart.
  const std::string mix = between(html, "id=\"case-CHOP-MIX-001\"", "</details>");
  const std::string blamed = between(mix, "<ul class=\"reqs blamed\">", "</ul>");
  EXPECT_TRUE(has(blamed, "<b>CHOP-versioning-validate</b>")) << mix;
  EXPECT_FALSE(has(blamed, "CHOP-hello-no-takeover")) << mix;
  EXPECT_TRUE(has(between(mix, "<ul class=\"reqs not-judged\">", "</ul>"), "CHOP-hello-no-takeover")) << mix;
  // The reading's failure is marked as such, in its summary line and at its requirement.
  const std::string reading = between(html, "id=\"case-CHOP-MIX-002\"", "</details>");
  EXPECT_TRUE(has(between(reading, "<summary>", "</summary>"), "<span class=\"tag reading\">reading (gated as SHOULD)</span>")) << reading;
  EXPECT_TRUE(has(between(reading, "<ul class=\"reqs blamed\">", "</ul>"), "CHOP-hello-agent-id-fixed</b>")) << reading;
  // The ALP cases name their shared root cause, linking to the group.
  EXPECT_TRUE(has(between(html, "id=\"case-ALP-RC-002\"", "</details>"), "<a href=\"#root-causes\">shared by 3 cases</a>"));
  // The roll-up counts CHOP-MIX-001 against what it blames only.
  for (const auto& r : doc["requirements"]) {
    if (r["id"] == "CHOP-hello-no-takeover") {
      EXPECT_NE(r["status"], "FAIL");
    }
    if (r["id"] == "CHOP-versioning-validate") {
      EXPECT_EQ(r["status"], "FAIL");
    }
  }
}

TEST(RunReports, MarkdownFailedMustsFromBlameAndReadingsApart) {
  const std::string md = render_markdown(rich_doc());
  EXPECT_TRUE(has(md, "**MUST coverage:** ")) << md;
  EXPECT_TRUE(has(md, "| MUST coverage | readings tested |")) << md;
  EXPECT_TRUE(has(md, "Untested MUSTs (")) << md;
  const std::string musts = between(md, "### Failed MUST requirements (4)", "###");
  ASSERT_FALSE(musts.empty()) << md;
  for (const char* id : {"CHOP-versioning-validate", "ALP-3-agent-id-unique", "ALP-3-lobby-id-stable", "ALP-4.2-ws-endpoint"}) {
    EXPECT_TRUE(has(musts, std::string("**") + md_escape(id) + "**")) << id << "\n" << musts;
  }
  EXPECT_FALSE(has(md, "CHOP-hello-no-takeover")) << "not reached by its case, so not failed";
  EXPECT_FALSE(has(musts, "CHOP-hello-agent-id-fixed"));
  EXPECT_FALSE(has(musts, "CHOP-versioning-exact-string")) << "in the WARN case, but not blamed";
  const std::string readings = between(md, "### Readings failed (not gating by default) (1)", "###");
  EXPECT_TRUE(has(readings, "**CHOP-hello-agent-id-fixed**")) << md;
  EXPECT_TRUE(has(readings, "[CHOP-MIX-002](report.html#case-CHOP-MIX-002)")) << readings;
  EXPECT_FALSE(has(readings, "CHOP-versioning-exact-string")) << readings;
  EXPECT_TRUE(has(md, "### Root causes (3)\n")) << md;
  EXPECT_TRUE(has(md, "- **3**: " + md_escape(kRootCause) + " — [ALP-RC-001](report.html#case-ALP-RC-001)")) << md;
  EXPECT_TRUE(has(md, "### Not applicable, by reason (4)\n\n- **3**: " + md_escape(kFeatureCause))) << md;
  EXPECT_TRUE(has(md, "- **1**: " + md_escape(kRoleCause) + " — [CHOP-NA-004](report.html#case-CHOP-NA-004)")) << md;
  // Under --strict-readings the reading gates, and the summary says so.
  const std::string strict = render_markdown(rich_doc(true));
  EXPECT_TRUE(has(strict, "### Readings failed (gating: --strict-readings) (1)")) << strict;
  EXPECT_TRUE(has(render_html({{"run", rich_doc(true)}}), "reading (gated as MUST: --strict-readings)"));
}

TEST(RunReports, JunitMessagesNameTheBlamedRequirements) {
  const std::string xml = render_junit(rich_doc());
  EXPECT_TRUE(has(xml, "<failure message=\"CHOP-versioning-validate: reason of CHOP-MIX-001\" type=\"MUST\">")) << xml;
  EXPECT_TRUE(has(xml, "<property name=\"warn:CHOP-MIX-002\" value=\"CHOP-hello-agent-id-fixed [reading (gated as SHOULD)]: reason of CHOP-MIX-002\"/>"))
      << xml;
  const std::string mix = between(xml, "<failure message=\"CHOP-versioning-validate", "</failure>");
  EXPECT_TRUE(has(mix, "blamed requirement CHOP-versioning-validate (MUST,")) << mix;
  EXPECT_TRUE(has(mix, "not judged (the case stopped before checking them): CHOP-hello-no-takeover")) << mix;
  EXPECT_TRUE(has(xml, "root cause: " + xml_escape(kRootCause) + " (shared by 3 cases)")) << xml;
  EXPECT_TRUE(has(xml, "<property name=\"must_coverage\" value=\"")) << xml;
  EXPECT_TRUE(has(xml, "<property name=\"must_coverage:alp\" value=\"")) << xml;
  EXPECT_EQ(count(xml, "<skipped message=\"N/A: " + xml_escape(kFeatureCause, true) + "\"/>"), 3u);
  EXPECT_EQ(xsd_errors(xml), "");
  const std::string strict = render_junit(rich_doc(true));
  EXPECT_TRUE(has(strict, "<failure message=\"CHOP-hello-agent-id-fixed [reading (gated as MUST: --strict-readings)]: reason of CHOP-MIX-002\""))
      << strict;
}

// ---- Hostile and odd documents ----

TEST(RunReports, HostileStringsInTheNewMembersAreEscapedEverywhere) {
  const Json doc = hostile_run_doc();
  const std::string html = render_html({{"run", doc}});
  EXPECT_FALSE(has(html, kHostileScript));
  EXPECT_FALSE(has(html, "<img"));
  EXPECT_EQ(count(html, "<script"), 1u);
  EXPECT_TRUE(has(html, "SIGINT&lt;script&gt;"));                 // interrupted
  EXPECT_TRUE(has(html, "<code>paths.ws&lt;script&gt;"));           // the failed check
  EXPECT_TRUE(has(html, "rc&lt;script&gt;"));                       // a root cause
  EXPECT_TRUE(has(html, "BLAMED&lt;script&gt;"));                   // a blamed requirement
  EXPECT_TRUE(has(html, "<span class=\"case-id\">NO-SUCH&lt;script&gt;"));  // an id with no case: text, no link
  EXPECT_EQ(valid_utf8(html), html);

  const std::string xml = render_junit(doc);
  EXPECT_FALSE(has(xml, "<testcase name=\"injected\""));
  EXPECT_FALSE(has(xml, "<script>"));
  EXPECT_FALSE(has(xml, "\x01"));
  EXPECT_TRUE(has(xml, "BLAMED&lt;script&gt;"));
  EXPECT_EQ(xsd_errors(xml), "");

  const std::string md = render_markdown(doc);
  EXPECT_FALSE(has(md, "<img"));
  EXPECT_FALSE(has(md, "<script"));
  EXPECT_FALSE(has(md, "</system-out>"));
  EXPECT_TRUE(has(md, "rc&lt;script&gt;"));
  EXPECT_EQ(valid_utf8(md), md);
}

TEST(RunReports, OddTypesInTheNewMembersDoNotThrow) {
  const char* odd[] = {
      R"({"preflight":[1],"setup_error":7,"interrupted":[],"target_down":"x","coverage":5,"not_applicable":{},"root_causes":"x"})",
      R"({"preflight":{"alp":5,"a2acp":{"ok":"yes","checks":"x","transcript":{}},"x":{"checks":[1,{"check":5,"status":[]}]}},
          "target_down":{"detected_in":5,"last_completed":[]},"coverage":{"must":5,"readings":{"applicable":-3,"tested":"x","percent":1e308},
          "protocols":[],"untested":[1,{"id":5}]},"not_applicable":[1,{"cases":"x","count":-3},{"cause":5,"cases":[1,"a"]}],
          "root_causes":[{"count":1.5}],"options":{"strict_readings":"yes"}})",
      R"({"setup_error":"x","cases":[{"id":"A","verdict":"FAIL","blamed":"x","reading":"yes","na_cause":5,"root_cause":[]},
          {"id":"B","verdict":"WARN","blamed":[1,null],"reading":true}],"coverage":{"protocols":{"alp":{"must":[],"readings":null}}}})",
      R"({"interrupted":"SIGTERM","cases":[{"verdict":"ERROR","reason":"not run: the run was interrupted"},{"verdict":"ERROR"}],
          "target_down":{},"preflight":{"":{"checks":[{"status":"failed"}]}}})",
  };
  for (const char* text : odd) {
    Json doc = Json::parse(text);
    doc["format"] = "agentconform-results/1";
    if (!doc.contains("cases")) doc["cases"] = Json::array();
    EXPECT_NO_THROW({
      render_html({{"x", doc}, {"y", every_verdict_doc()}});
      const std::string xml = render_junit(doc);
      EXPECT_EQ(xsd_errors(xml), "") << text;
      render_markdown(doc);
      render_json(doc, nullptr);
      compare(doc, every_verdict_doc(), Policy::must);
      compare(every_verdict_doc(), doc, Policy::must);
      evaluate(doc, nullptr, Policy::must, "2025-01-01");
    }) << text;
  }
}

TEST(RunReports, DocumentsWithoutTheNewMembersStillRender) {
  Json doc = every_verdict_doc();
  for (const char* k : {"preflight", "setup_error", "interrupted", "target_down", "coverage", "not_applicable", "root_causes"}) doc.erase(k);
  for (auto& c : doc["cases"]) {
    for (const char* k : {"blamed", "reading", "na_cause", "root_cause"}) c.erase(k);
  }
  const std::string html = render_html({{"old", doc}});
  EXPECT_FALSE(has(html, "class=\"banner"));
  EXPECT_FALSE(has(html, "id=\"preflight\""));
  EXPECT_FALSE(has(html, "MUST coverage"));
  // N/A cases are still grouped, by their reason.
  EXPECT_TRUE(has(between(html, "<h3 id=\"not-applicable\">", "</table>"), "reason of CHOP-HS-001"));
  // Without blame, a failure blames its case's requirements (as before issue 11).
  EXPECT_TRUE(has(between(html, "id=\"case-CHOP-VER-002\"", "</details>"), "<ul class=\"reqs blamed\"><li><b>CHOP-versioning-reject-incompatible</b>"));
  const std::string md = render_markdown(doc);
  EXPECT_TRUE(has(md, "### Failed MUST requirements (1)"));
  EXPECT_FALSE(has(md, "MUST coverage"));
  const std::string xml = render_junit(doc);
  EXPECT_TRUE(has(xml, "<failure message=\"CHOP-versioning-reject-incompatible: expected close 1008"));
  EXPECT_FALSE(has(xml, "preflight"));
  EXPECT_EQ(xsd_errors(xml), "");
}

// ---- compare ----

TEST(CompareRunState, ANewSetupErrorIsNoCleanComparison) {
  const Comparison c = compare(every_verdict_doc(), setup_error_doc(), Policy::must);
  EXPECT_EQ(c.exit_code(), 3);
  ASSERT_FALSE(c.notes.empty());
  EXPECT_EQ(c.notes[0].rfind("NEW: setup error, no case ran: chopsticks: paths.ws", 0), 0u) << c.notes[0];
  EXPECT_TRUE(has(to_text(c), "NEW stopped at its preflight (setup error)"));
  EXPECT_EQ(to_json(c)["exit_code"], 3);

  const Comparison back = compare(setup_error_doc(), every_verdict_doc(), Policy::must);
  EXPECT_EQ(back.exit_code(), 1);  // CHOP-VER-002 FAIL and CHOP-HS-002 ERROR are new against a run of nothing
  EXPECT_EQ(back.notes.size(), 1u);

  const Comparison cut = compare(every_verdict_doc(), interrupted_doc(), Policy::must);
  EXPECT_TRUE(has(to_text(cut), "note: NEW: interrupted by SIGINT"));
  const Comparison down = compare(every_verdict_doc(), target_down_doc(), Policy::must);
  EXPECT_TRUE(has(to_text(down), "note: NEW: the target stopped answering during CHOP-VER-002"));
  EXPECT_TRUE(compare(every_verdict_doc(), every_verdict_doc(), Policy::must).notes.empty());
}

}  // namespace
}  // namespace ac::reports::testing

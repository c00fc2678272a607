// The HTML report rendered by a real browser: headless Chromium (Debian `chromium`) loads the
// file, runs the report's script under its Content-Security-Policy, and --dump-dom prints the
// resulting DOM. Checks that the script ran (counts filled in), that filters set from the
// address work, that a #case anchor opens its case, and that hostile strings from a target stayed
// text (no injected element or script ran). Skipped only when chromium is not installed.
#include <gtest/gtest.h>

#include "reports/report.hpp"
#include "tests/reports/report_fixture.hpp"

namespace ac::reports::testing {
namespace {

class ChromiumRender : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!on_path("chromium")) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  }

  // The DOM after load, for report.html plus an optional fragment.
  std::string dom(const std::string& html, const std::string& fragment = "") {
    spit(dir / "report.html", html);
    const std::string url = "file://" + (dir / "report.html").string() + fragment;
    const Process p = run_process({"timeout", "120", "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                   "--no-first-run", "--user-data-dir=" + (dir / "profile").string(), "--dump-dom", url},
                                  dir.path());
    EXPECT_EQ(p.exit_code, 0) << p.err;
    EXPECT_NE(p.out.find("</html>"), std::string::npos) << p.err;
    return p.out;
  }

  // The text after `prefix` up to the next '<'.
  static std::string text_after(const std::string& dom, const std::string& prefix) {
    const std::size_t at = dom.find(prefix);
    if (at == std::string::npos) return "(no " + prefix + ")";
    const std::size_t start = at + prefix.size();
    return dom.substr(start, dom.find('<', start) - start);
  }
  static std::string shown(const std::string& dom) { return text_after(dom, "<span id=\"shown-count\">"); }
  static std::string count_of(const std::string& dom, const std::string& verdict) {
    return text_after(dom, "<span class=\"count\" data-verdict=\"" + verdict + "\">");
  }

  // The start tag of the first element whose start tag contains `marker`.
  static std::string tag_with(const std::string& dom, const std::string& marker) {
    const std::size_t at = dom.find(marker);
    if (at == std::string::npos) return {};
    const std::size_t open = dom.rfind('<', at);
    bool quoted = false;  // attribute values may hold '>' (serialized DOMs need not escape it)
    for (std::size_t i = open; i < dom.size(); ++i) {
      if (dom[i] == '"') quoted = !quoted;
      if (dom[i] == '>' && !quoted) return dom.substr(open, i + 1 - open);
    }
    return {};
  }

  // Whether the <details> of a case carries the attribute (hidden, open) in the rendered DOM.
  static bool case_has(const std::string& dom, const std::string& id, const std::string& attribute) {
    return details_has(dom, "case-" + id, attribute);
  }
  static bool finding_has(const std::string& dom, const std::string& id, const std::string& attribute) {
    return details_has(dom, "finding-" + id, attribute);
  }
  static bool details_has(const std::string& dom, const std::string& anchor, const std::string& attribute) {
    const std::string tag = tag_with(dom, "id=\"" + anchor + "\"");
    return tag.starts_with("<details ") && tag.find(" " + attribute + "=\"\"") != std::string::npos;
  }
  static std::size_t occurrences(const std::string& hay, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
    return n;
  }

  TempDir dir;
};

TEST_F(ChromiumRender, ScriptRunsUnderTheCspAndFillsTheCounts) {
  const std::string d = dom(render_html({{"run", every_verdict_doc()}}));
  EXPECT_NE(d.find("data-filter-ready=\"1\""), std::string::npos) << "the report's script did not run";
  EXPECT_EQ(shown(d), "6 of 6 cases shown");
  EXPECT_EQ(count_of(d, "PASS"), "2");
  EXPECT_EQ(count_of(d, "FAIL"), "1");
  EXPECT_EQ(count_of(d, "NOT_APPLICABLE"), "1");
  EXPECT_FALSE(case_has(d, "CHOP-VER-001", "hidden"));
  EXPECT_TRUE(case_has(d, "CHOP-VER-002", "open"));  // failures open with their transcript
}

TEST_F(ChromiumRender, FiltersFromTheAddress) {
  const std::string html = render_html({{"run", every_verdict_doc()}});
  std::string d = dom(html, "#verdict=FAIL,ERROR");
  EXPECT_EQ(shown(d), "2 of 6 cases shown");
  EXPECT_TRUE(case_has(d, "CHOP-VER-001", "hidden"));
  EXPECT_FALSE(case_has(d, "CHOP-VER-002", "hidden"));
  EXPECT_FALSE(case_has(d, "CHOP-HS-002", "hidden"));

  d = dom(html, "#protocol=alp");
  EXPECT_EQ(shown(d), "1 of 6 cases shown");
  EXPECT_EQ(count_of(d, "FAIL"), "0");  // counts follow the other filters
  EXPECT_EQ(count_of(d, "PASS"), "1");

  d = dom(html, "#suite=handshake&verdict=ERROR");
  EXPECT_EQ(shown(d), "1 of 6 cases shown");
  EXPECT_FALSE(case_has(d, "CHOP-HS-002", "hidden"));

  d = dom(html, "#q=PWNED");  // text search, case-insensitive, over the reason
  EXPECT_EQ(shown(d), "1 of 6 cases shown");
  EXPECT_FALSE(case_has(d, "CHOP-VER-002", "hidden"));
}

TEST_F(ChromiumRender, CaseAnchorOpensTheCase) {
  const std::string d = dom(render_html({{"run", every_verdict_doc()}}), "#case-CHOP-VER-003");
  EXPECT_TRUE(case_has(d, "CHOP-VER-003", "open"));
  EXPECT_FALSE(case_has(d, "CHOP-VER-001", "open"));
}

TEST_F(ChromiumRender, HostileFramesStayText) {
  const std::string d = dom(render_html({{"run", every_verdict_doc()}}));
  EXPECT_EQ(d.find("<img"), std::string::npos);
  EXPECT_EQ(d.find("data-pwned"), std::string::npos);
  EXPECT_EQ(d.find("<title>pwned</title>"), std::string::npos);
  EXPECT_NE(d.find("&lt;img id=\"pwned\""), std::string::npos);  // shown as text
  EXPECT_NE(d.find(kUnicode), std::string::npos);
}

TEST_F(ChromiumRender, SideBySideRowsFilterToo) {
  RunResult other = every_verdict();
  other.cases[1].verdict = Verdict::pass;
  const std::string html = render_html({{"a.json", every_verdict_doc()}, {"b.json", engine::to_json(other, catalog())}});
  const std::string d = dom(html, "#verdict=FAIL");
  EXPECT_EQ(shown(d), "1 of 12 cases shown");
  const std::string differs = tag_with(d, "class=\"filter-row cmp-row differs\"");
  ASSERT_FALSE(differs.empty());
  EXPECT_EQ(differs.find("hidden"), std::string::npos) << differs;  // FAIL in one column: shown
  const std::string same = tag_with(d, "class=\"filter-row cmp-row\" data-protocol=\"alp\"");
  ASSERT_FALSE(same.empty());
  EXPECT_NE(same.find("hidden"), std::string::npos) << same;  // PASS everywhere: hidden
}

}  // namespace
}  // namespace ac::reports::testing

namespace ac::reports::testing {
namespace {

// The fuzzing section (issue 6) as the browser builds it: figures, every finding open with its
// replay command, steps table and transcript; hostile details and steps stayed text (the DOM has
// exactly the rows the writer wrote, so nothing closed a table early or added elements).
TEST_F(ChromiumRender, FuzzFindingsRender) {
  const std::string d = dom(render_html({{"fuzz", fuzz_doc()}}));
  EXPECT_NE(d.find("data-filter-ready=\"1\""), std::string::npos) << "the report's script did not run";
  EXPECT_EQ(shown(d), "6 of 6 findings shown");
  EXPECT_NE(d.find("<h3 id=\"fuzzing\">Fuzzing</h3>"), std::string::npos);
  EXPECT_NE(d.find("<td data-figure=\"sessions\">300</td>"), std::string::npos);
  for (const char* id : {"FUZZ-agora-liveness-1", "FUZZ-chopsticks-crash-2", "FUZZ-chopsticks-hang-3", "FUZZ-agora-protocol-4",
                         "FUZZ-agora-isolation-5", "FUZZ-agora-memory-6"}) {
    EXPECT_TRUE(finding_has(d, id, "open")) << id;
    EXPECT_FALSE(finding_has(d, id, "hidden")) << id;
  }
  EXPECT_NE(d.find("<pre class=\"replay\">agentconform fuzz --replay agentconform-fuzz/agora-isolation-5.json</pre>"),
            std::string::npos);
  EXPECT_EQ(occurrences(d, "<tr class=\"fuzz-step\">"), 60u);
  EXPECT_EQ(occurrences(d, "<details class=\"finding "), 6u);
  EXPECT_NE(d.find("<pre>printable payload</pre>"), std::string::npos);
  EXPECT_EQ(d.find("<img"), std::string::npos);
  EXPECT_EQ(d.find("data-pwned"), std::string::npos);
  EXPECT_EQ(d.find("<title>pwned</title>"), std::string::npos);
  EXPECT_NE(d.find("]]&gt; &lt;img id=\"pwned\""), std::string::npos);  // the detail, shown as text
}

TEST_F(ChromiumRender, FindingsFilterByTextAndProtocolAndOpenFromAnAnchor) {
  const std::string html = render_html({{"fuzz", fuzz_doc()}});
  std::string d = dom(html, "#q=ISOLATION");
  EXPECT_EQ(shown(d), "1 of 6 findings shown");
  EXPECT_FALSE(finding_has(d, "FUZZ-agora-isolation-5", "hidden"));
  EXPECT_TRUE(finding_has(d, "FUZZ-agora-liveness-1", "hidden"));

  d = dom(html, "#protocol=chopsticks");
  EXPECT_EQ(shown(d), "2 of 6 findings shown");
  EXPECT_FALSE(finding_has(d, "FUZZ-chopsticks-crash-2", "hidden"));
  EXPECT_TRUE(finding_has(d, "FUZZ-agora-memory-6", "hidden"));

  // With cases too, both are counted.
  Json mixed = every_verdict_doc();
  mixed["fuzz"] = fuzz_doc()["fuzz"];
  mixed["findings"] = fuzz_doc()["findings"];
  d = dom(render_html({{"run", mixed}}));
  EXPECT_EQ(shown(d), "6 of 6 cases shown, 6 of 6 findings shown");
}

}  // namespace
}  // namespace ac::reports::testing

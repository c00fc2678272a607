// The issue-11 parts of the HTML report in a real browser (headless Chromium, --dump-dom, as in
// chromium_render_test.cpp): a setup-error report loads with its script running under the CSP,
// shows no filter bar and opens its preflight; in a run report the coverage, untested-MUST and
// group rows follow the protocol filter like every other row. Skipped only without chromium.
#include <gtest/gtest.h>

#include "reports/report.hpp"
#include "tests/reports/run_state_fixture.hpp"

namespace ac::reports::testing {
namespace {

class ChromiumRunState : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!on_path("chromium")) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  }

  std::string dom(const std::string& html, const std::string& fragment = "") {
    spit(dir / "report.html", html);
    const Process p = run_process({"timeout", "120", "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                   "--user-data-dir=" + (dir / "profile").string(), "--dump-dom",
                                   "file://" + (dir / "report.html").string() + fragment},
                                  dir.path());
    EXPECT_EQ(p.exit_code, 0) << p.err;
    EXPECT_NE(p.out.find("</html>"), std::string::npos) << p.err;
    return p.out;
  }

  // The start tag of the first element whose start tag contains `marker` ("" when none).
  static std::string tag_with(const std::string& dom, const std::string& marker) {
    const std::size_t at = dom.find(marker);
    if (at == std::string::npos) return {};
    const std::size_t open = dom.rfind('<', at);
    bool quoted = false;
    for (std::size_t i = open; i < dom.size(); ++i) {
      if (dom[i] == '"') quoted = !quoted;
      if (dom[i] == '>' && !quoted) return dom.substr(open, i + 1 - open);
    }
    return {};
  }
  static bool hidden(const std::string& tag) { return tag.find(" hidden=\"\"") != std::string::npos; }

  TempDir dir;
};

TEST_F(ChromiumRunState, SetupErrorReportLoadsWithoutFiltersAndOpensThePreflight) {
  const std::string d = dom(render_html({{"run", setup_error_doc()}}));
  EXPECT_NE(d.find("data-filter-ready=\"1\""), std::string::npos) << "the report's script did not run";
  EXPECT_TRUE(hidden(tag_with(d, "id=\"filters\""))) << tag_with(d, "id=\"filters\"");
  EXPECT_NE(tag_with(d, "id=\"preflight\"").find(" open=\"\""), std::string::npos);
  EXPECT_NE(d.find("<div class=\"banner setup-error\" id=\"setup-error\">"), std::string::npos);
}

TEST_F(ChromiumRunState, CoverageAndGroupRowsFollowTheProtocolFilter) {
  const std::string d = dom(render_html({{"run", rich_doc()}}), "#protocol=alp");
  EXPECT_NE(d.find("data-filter-ready=\"1\""), std::string::npos);
  const std::string alp = tag_with(d, "data-protocol=\"alp\" data-text=\"alp coverage\"");
  const std::string chop = tag_with(d, "data-protocol=\"chopsticks\" data-text=\"chopsticks coverage\"");
  ASSERT_FALSE(alp.empty());
  ASSERT_FALSE(chop.empty());
  EXPECT_FALSE(hidden(alp)) << alp;
  EXPECT_TRUE(hidden(chop)) << chop;
  // The root-cause group is alp's, the N/A groups chopsticks'.
  const std::string rc = tag_with(d, "data-text=\"" + kRootCause);
  const std::string na = tag_with(d, "data-text=\"" + kFeatureCause);
  ASSERT_FALSE(rc.empty());
  ASSERT_FALSE(na.empty());
  EXPECT_FALSE(hidden(rc)) << rc;
  EXPECT_TRUE(hidden(na)) << na;
}

}  // namespace
}  // namespace ac::reports::testing

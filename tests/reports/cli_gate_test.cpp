// The CI path end to end, through the built `agentconform` (AC_CLI) against the embedded
// reference lobby: a run with a lobby fault exits 1 and its reports (all four formats) show the
// failing case with its transcript; with that failure in a baseline the run exits 0; without the
// fault the baselined case is reported fixed and exits 1 until --update-baseline; usage errors
// exit 2; an unreachable target exits 3; replay repeats a recorded case; compare and report on
// hand-built results files.
#include <gtest/gtest.h>

#include "reports/report.hpp"
#include "tests/reports/report_fixture.hpp"

namespace ac::reports::testing {
namespace {

std::size_t count_differs(const std::string& html) {
  std::size_t n = 0;
  for (auto at = html.find("cmp-row differs"); at != std::string::npos; at = html.find("cmp-row differs", at + 1)) ++n;
  return n;
}

const std::string kCase = "CHOP-VER-002";  // hello without protocolVersion must be rejected
const std::string kFault = "chopsticks.version.accept-missing";

// The CLI processes run under the same sanitizers (leak detection included) as this binary.
Process cli(std::vector<std::string> args, const TempDir& dir) {
  args.insert(args.begin(), AC_CLI);
  return run_process(args, dir.path());
}

std::vector<std::string> run_args(const TempDir& dir, const std::string& report_dir, bool fault) {
  std::vector<std::string> a = {"run", "--protocol", "chopsticks", "--case", kCase, "--case", "CHOP-VER-001", "--jobs", "1",
                                "--seed", "1234", "--quiet", "--report-dir", (dir / report_dir).string()};
  if (fault) {
    a.push_back("--lobby-fault");
    a.push_back(kFault);
  }
  return a;
}

class CliGate : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { dir_ = new TempDir; }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static TempDir& dir() { return *dir_; }
  static TempDir* dir_;
};
TempDir* CliGate::dir_ = nullptr;

TEST_F(CliGate, FaultFailsTheRunAndEveryReportShowsIt) {
  const Process p = cli(run_args(dir(), "faulty", true), dir());
  ASSERT_EQ(p.exit_code, 1) << p.out << p.err;
  for (const char* f : {"results.json", "junit.xml", "report.html", "summary.md"}) {
    EXPECT_TRUE(std::filesystem::exists(dir() / "faulty" / f)) << f;
  }
  const std::string html = slurp(dir() / "faulty/report.html");
  EXPECT_NE(html.find("id=\"case-" + kCase + "\" data-verdict=\"FAIL\""), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"dir-out\">"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"dir-in\">"), std::string::npos);
  EXPECT_NE(html.find(kFault), std::string::npos);
  const Json results = Json::parse(slurp(dir() / "faulty/results.json"));
  EXPECT_EQ(results["gate"]["exit_code"], 1);
  EXPECT_EQ(results["seed"], 1234);
  EXPECT_EQ(results["gate"]["new_failures"][0]["id"], kCase);
  EXPECT_NE(slurp(dir() / "faulty/junit.xml").find("<failure "), std::string::npos);
  EXPECT_NE(slurp(dir() / "faulty/summary.md").find("[" + kCase + "](report.html#case-" + kCase + ")"), std::string::npos);
  EXPECT_NE(p.out.find("gate: not conformant"), std::string::npos) << p.out;
}

TEST_F(CliGate, CleanRunExitsZero) {
  const Process p = cli(run_args(dir(), "clean", false), dir());
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_EQ(Json::parse(slurp(dir() / "clean/results.json"))["gate"]["exit_code"], 0);
}

TEST_F(CliGate, BaselineToleratesThenReportsTheFix) {
  const std::string baseline = (dir() / "baseline.json").string();
  auto with = [&](std::vector<std::string> a, std::vector<std::string> extra) {
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  // --update-baseline records the failure (and the run then passes against it).
  Process p = cli(with(run_args(dir(), "b1", true), {"--baseline", baseline, "--update-baseline"}), dir());
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  const Json b = Json::parse(slurp(baseline));
  ASSERT_EQ(b["entries"].size(), 1u);
  EXPECT_EQ(b["entries"][0]["case"], kCase);

  p = cli(with(run_args(dir(), "b2", true), {"--baseline", baseline}), dir());
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_EQ(Json::parse(slurp(dir() / "b2/results.json"))["gate"]["baselined"][0]["id"], kCase);

  // Without the fault the baselined case passes: reported fixed, the run fails.
  p = cli(with(run_args(dir(), "b3", false), {"--baseline", baseline}), dir());
  EXPECT_EQ(p.exit_code, 1) << p.out << p.err;
  EXPECT_NE(p.out.find("update the baseline"), std::string::npos) << p.out;
  EXPECT_EQ(Json::parse(slurp(dir() / "b3/results.json"))["gate"]["fixed"][0]["id"], kCase);
  EXPECT_NE(slurp(dir() / "b3/summary.md").find("Fixed but still baselined"), std::string::npos);

  p = cli(with(run_args(dir(), "b4", false), {"--baseline", baseline, "--update-baseline"}), dir());
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_TRUE(Json::parse(slurp(baseline))["entries"].empty());

  // An expired entry tolerates nothing.
  spit(baseline, R"({"format":"agentconform-baseline/1","entries":[{"case":")" + kCase +
                     R"(","reason":"until 2.0","expires":"2000-01-01"}]})");
  p = cli(with(run_args(dir(), "b5", true), {"--baseline", baseline}), dir());
  EXPECT_EQ(p.exit_code, 1) << p.out << p.err;
  EXPECT_EQ(Json::parse(slurp(dir() / "b5/results.json"))["gate"]["expired"][0]["id"], kCase);
}

TEST_F(CliGate, UsageAndConfigurationErrorsExitTwo) {
  spit(dir() / "broken-baseline.json", R"({"format":"agentconform-baseline/1","entries":[{"case":"X"}]})");
  const std::vector<std::vector<std::string>> bad = {
      {"--report", "pdf"},
      {"--fail-on", "may"},
      {"--update-baseline"},
      {"--baseline", (dir() / "missing.json").string()},
      {"--baseline", (dir() / "broken-baseline.json").string()},
      {"--protocol", "nope"},
  };
  for (const auto& extra : bad) {
    auto a = run_args(dir(), "usage", false);
    a.insert(a.end(), extra.begin(), extra.end());
    const Process p = cli(a, dir());
    EXPECT_EQ(p.exit_code, 2) << extra.front() << "\n" << p.err;
    EXPECT_FALSE(p.err.empty());
  }
  EXPECT_NE(cli({"run", "--baseline", (dir() / "broken-baseline.json").string()}, dir()).err.find("/entries/0/reason"),
            std::string::npos);
  EXPECT_EQ(cli({"compare", (dir() / "missing.json").string(), (dir() / "missing.json").string()}, dir()).exit_code, 2);
  EXPECT_EQ(cli({"replay", (dir() / "missing.json").string(), "--case", "X"}, dir()).exit_code, 2);
}

TEST_F(CliGate, UnreachableTargetExitsThree) {
  const Process p = cli({"run", "--protocol", "chopsticks", "--target", "ws://127.0.0.1:1/chopsticks/ws", "--case", "CHOP-VER-001",
                         "--jobs", "1", "--quiet", "--report-dir", (dir() / "unreachable").string()},
                        dir());
  EXPECT_EQ(p.exit_code, 3) << p.out << p.err;
  EXPECT_EQ(Json::parse(slurp(dir() / "unreachable/results.json"))["gate"]["unreachable"], true);
  // An unreachable target must not fill a baseline with ERRORs.
  const Process u = cli({"run", "--protocol", "chopsticks", "--target", "ws://127.0.0.1:1/chopsticks/ws", "--case", "CHOP-VER-001",
                         "--jobs", "1", "--quiet", "--report", "none", "--baseline", (dir() / "never.json").string(),
                         "--update-baseline"},
                        dir());
  EXPECT_EQ(u.exit_code, 3) << u.out << u.err;
  EXPECT_FALSE(std::filesystem::exists(dir() / "never.json"));
}

TEST_F(CliGate, ReplayRepeatsTheRecordedCase) {
  if (!std::filesystem::exists(dir() / "faulty/results.json")) {
    ASSERT_EQ(cli(run_args(dir(), "faulty", true), dir()).exit_code, 1);
  }
  if (!std::filesystem::exists(dir() / "clean/results.json")) {
    ASSERT_EQ(cli(run_args(dir(), "clean", false), dir()).exit_code, 0);
  }
  const std::string faulty = (dir() / "faulty/results.json").string(), clean = (dir() / "clean/results.json").string();
  // Against the lobby with the recorded fault and seed: the failure again, with its transcript.
  Process p = cli({"replay", faulty, "--case", kCase}, dir());
  EXPECT_EQ(p.exit_code, 1) << p.out << p.err;
  EXPECT_NE(p.out.find("with seed 1234"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find(kFault), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("] -> "), std::string::npos) << p.out;  // transcript, both directions
  EXPECT_NE(p.out.find("] <- "), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("reproduced the recorded verdict FAIL"), std::string::npos) << p.out;
  p = cli({"replay", clean, "--case", kCase}, dir());
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("reproduced the recorded verdict PASS"), std::string::npos) << p.out;
  EXPECT_EQ(cli({"replay", clean, "--case", "NO-SUCH-CASE"}, dir()).exit_code, 2);
}

// compare and report work on results files only: hand-built ones here.
TEST(CliFiles, CompareExitsOneOnRegressions) {
  TempDir dir;
  RunResult before = every_verdict();
  RunResult after = every_verdict();
  after.cases[0].verdict = Verdict::fail;  // CHOP-VER-001 regresses
  after.cases[1].verdict = Verdict::pass;  // CHOP-VER-002 fixed
  spit(dir / "before.json", engine::to_json(before, catalog()).dump());
  spit(dir / "after.json", engine::to_json(after, catalog()).dump());
  const std::string a = (dir / "before.json").string(), b = (dir / "after.json").string();

  Process p = run_process({AC_CLI, "compare", a, b}, dir.path());
  EXPECT_EQ(p.exit_code, 1) << p.out << p.err;
  EXPECT_NE(p.out.find("new failures (1):\n  CHOP-VER-001  PASS -> FAIL"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("fixed (1):\n  CHOP-VER-002  FAIL -> PASS"), std::string::npos) << p.out;
  p = run_process({AC_CLI, "compare", a, a, "--json"}, dir.path());
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_EQ(Json::parse(p.out)["unchanged"], 6);
  // WARN gates under --fail-on should: CHOP-VER-003 WARN in both, so no regression either way.
  EXPECT_EQ(run_process({AC_CLI, "compare", a, a, "--fail-on", "should"}, dir.path()).exit_code, 0);

  spit(dir / "not-results.json", R"({"format":"something-else","cases":[]})");
  p = run_process({AC_CLI, "compare", a, (dir / "not-results.json").string()}, dir.path());
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.err.find("not an agentconform results file"), std::string::npos) << p.err;
  spit(dir / "garbage.json", "{\"format\": ");
  EXPECT_EQ(run_process({AC_CLI, "compare", (dir / "garbage.json").string(), a}, dir.path()).exit_code, 2);
}

TEST(CliFiles, ReportRendersSeveralFilesSideBySide) {
  TempDir dir;
  RunResult other = every_verdict();
  other.cases[1].verdict = Verdict::pass;
  spit(dir / "impl-a.json", every_verdict_doc().dump());
  spit(dir / "impl-b.json", engine::to_json(other, catalog()).dump());
  const Process p = run_process({AC_CLI, "report", (dir / "impl-a.json").string(), (dir / "impl-b.json").string(), "--report",
                                 "html,md,junit", "--report-dir", (dir / "out").string()},
                                dir.path());
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  const std::string html = slurp(dir / "out/report.html");
  EXPECT_NE(html.find("id=\"side-by-side\""), std::string::npos);
  EXPECT_EQ(count_differs(html), 1u);
  EXPECT_TRUE(std::filesystem::exists(dir / "out/summary.md"));
  EXPECT_TRUE(std::filesystem::exists(dir / "out/junit.xml"));
  EXPECT_FALSE(std::filesystem::exists(dir / "out/results.json"));
  EXPECT_EQ(run_process({AC_CLI, "report", (dir / "impl-a.json").string(), "--report", "pdf"}, dir.path()).exit_code, 2);
}

}  // namespace
}  // namespace ac::reports::testing

// The CI path end to end, through the built `agentconform` (AC_CLI) against the embedded
// reference lobby: a run with a lobby fault exits 1 and its reports (all four formats) show the
// failing case with its transcript; with that failure in a baseline the run exits 0; without the
// fault the baselined case is reported fixed and exits 1 until --update-baseline; usage errors
// exit 2; an unreachable target exits 3; replay repeats a recorded case; compare and report on
// hand-built results files. What `run` writes validates against schemas/report.schema.json, and a
// setup error (nothing listening) gives reports that say so and hold no FAIL, also re-rendered.
#include <gtest/gtest.h>

#include "harness/schema/schema_store.hpp"
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

// The violations of a results document against schemas/report.schema.json ("" when it is valid).
std::string schema_violations(const Json& doc) {
  static const auto store = [] {
    auto r = schema::SchemaStore::load_directory(std::filesystem::path(AC_SOURCE_DIR) / "schemas");
    if (!r) throw std::runtime_error(r.error());
    return *r;
  }();
  const auto* s = store->find("report.schema.json");
  if (!s) return "report.schema.json not found";
  std::string out;
  for (const auto& v : s->validate(doc)) out += v.pointer + " " + v.rule + ": " + v.message + "\n";
  return out;
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
  // The preflight finds nothing listening: a setup error, no case run (no ERROR per case).
  const Json doc = Json::parse(slurp(dir() / "unreachable/results.json"));
  EXPECT_EQ(doc["gate"]["exit_code"], 3);
  EXPECT_NE(doc.value("setup_error", std::string()).find("reachable"), std::string::npos) << doc.dump(1);
  EXPECT_TRUE(doc["cases"].empty());
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

TEST_F(CliGate, RunResultsValidateAgainstThePublishedSchema) {
  if (!std::filesystem::exists(dir() / "faulty/results.json")) {
    ASSERT_EQ(cli(run_args(dir(), "faulty", true), dir()).exit_code, 1);
  }
  const Json doc = Json::parse(slurp(dir() / "faulty/results.json"));
  EXPECT_EQ(schema_violations(doc), "");
  ASSERT_TRUE(doc.contains("coverage"));
  ASSERT_TRUE(doc.contains("preflight"));
  // The failure blames its step's requirement, and every report names it.
  const Json* failed = nullptr;
  for (const auto& c : doc["cases"]) {
    if (c["id"] == kCase) failed = &c;
  }
  ASSERT_NE(failed, nullptr);
  ASSERT_TRUE(failed->contains("blamed")) << failed->dump();
  const std::string blamed = (*failed)["blamed"][0];
  EXPECT_NE(slurp(dir() / "faulty/junit.xml").find("<failure message=\"" + blamed), std::string::npos);
  EXPECT_NE(slurp(dir() / "faulty/summary.md").find("**MUST coverage:**"), std::string::npos);
  EXPECT_NE(slurp(dir() / "faulty/report.html").find("<ul class=\"reqs blamed\"><li><b>" + blamed + "</b>"), std::string::npos);
}

TEST_F(CliGate, SetupErrorReportsSayItAndHoldNoFail) {
  const Process p = cli({"run", "--protocol", "chopsticks", "--target", "ws://127.0.0.1:1/chopsticks/ws", "--case", "CHOP-VER-*",
                         "--jobs", "1", "--quiet", "--report-dir", (dir() / "setup").string()},
                        dir());
  ASSERT_EQ(p.exit_code, 3) << p.out << p.err;
  const Json doc = Json::parse(slurp(dir() / "setup/results.json"));
  EXPECT_EQ(schema_violations(doc), "");
  ASSERT_TRUE(doc.contains("setup_error")) << doc.dump(1);
  EXPECT_TRUE(doc["cases"].empty());
  const std::string md = slurp(dir() / "setup/summary.md");
  EXPECT_NE(md.find("> **Setup error: no case ran.**"), std::string::npos) << md;
  EXPECT_EQ(md.find("FAIL"), std::string::npos) << md;
  const std::string xml = slurp(dir() / "setup/junit.xml");
  EXPECT_NE(xml.find("<testcase name=\"preflight\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("failures=\"0\" errors=\"1\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<failure"), std::string::npos) << xml;
  EXPECT_NE(slurp(dir() / "setup/report.html").find("<div class=\"banner setup-error\""), std::string::npos);

  // Re-rendered from its results file, it says the same.
  const Process r = cli({"report", (dir() / "setup/results.json").string(), "--report", "html,md,junit", "--report-dir",
                         (dir() / "setup-again").string()},
                        dir());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(slurp(dir() / "setup-again/report.html").find("<div class=\"banner setup-error\""), std::string::npos);
  EXPECT_EQ(slurp(dir() / "setup-again/summary.md"), md);
  // A run that tested nothing cannot pass a comparison.
  if (!std::filesystem::exists(dir() / "clean/results.json")) {
    ASSERT_EQ(cli(run_args(dir(), "clean", false), dir()).exit_code, 0);
  }
  const Process c = cli({"compare", (dir() / "clean/results.json").string(), (dir() / "setup/results.json").string()}, dir());
  EXPECT_EQ(c.exit_code, 3) << c.out << c.err;
  EXPECT_NE(c.out.find("note: NEW: setup error"), std::string::npos) << c.out;
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

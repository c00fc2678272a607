// Baseline semantics and the gate's exit codes, on hand-built result sets: a new failure fails,
// a baselined one does not, an expired entry fails again, a fixed baselined case fails until the
// baseline is updated, ERROR exits 3, --fail-on should gates WARN; update keeps reasons and
// expiry; a baseline made under --fail-on should stays valid under the default policy; the parser
// reports precise errors. Also `compare`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reports/baseline.hpp"
#include "reports/compare.hpp"
#include "tests/reports/report_fixture.hpp"

namespace ac::reports::testing {
namespace {

Json run_of(std::vector<CaseResult> cases) {
  RunResult r = every_verdict();
  r.cases = std::move(cases);
  return engine::to_json(r, catalog());
}

Baseline baseline_of(std::vector<BaselineEntry> entries) {
  Json doc = to_json(Baseline{std::move(entries)}, "2025-01-01T00:00:00Z");
  auto b = baseline_from_json(doc);  // through the parser, so entries are sorted and checked
  if (!b) throw std::runtime_error(b.error());
  return *b;
}

std::vector<std::string> ids(const std::vector<GateCase>& v) {
  std::vector<std::string> out;
  for (const auto& c : v) out.push_back(c.id);
  return out;
}

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(Gate, AllPassingIsConformant) {
  const Json doc = run_of({make_case("A", "alp", "lifecycle", Verdict::pass), make_case("B", "alp", "lifecycle", Verdict::not_applicable)});
  const Gate g = evaluate(doc, nullptr, Policy::must, "2025-02-01");
  EXPECT_EQ(g.exit_code, 0);
  EXPECT_THAT(g.new_failures, IsEmpty());
  EXPECT_NE(g.summary.find("conformant"), std::string::npos);
}

TEST(Gate, NewFailureFailsTheRun) {
  const Json doc = run_of({make_case("A", "alp", "lifecycle", Verdict::pass), make_case("B", "alp", "lifecycle", Verdict::fail)});
  const Gate g = evaluate(doc, nullptr, Policy::must, "2025-02-01");
  EXPECT_EQ(g.exit_code, 1);
  EXPECT_THAT(ids(g.new_failures), ElementsAre("B"));
}

TEST(Gate, BaselinedFailureIsToleratedNewOneIsNot) {
  const Json doc = run_of({make_case("A", "alp", "lifecycle", Verdict::fail), make_case("B", "alp", "lifecycle", Verdict::fail)});
  const Baseline b = baseline_of({{"A", "alp", "FAIL", "issue #12", "", ""}});
  Gate g = evaluate(doc, &b, Policy::must, "2025-02-01");
  EXPECT_EQ(g.exit_code, 1);
  EXPECT_THAT(ids(g.baselined), ElementsAre("A"));
  EXPECT_THAT(ids(g.new_failures), ElementsAre("B"));
  EXPECT_EQ(g.baselined[0].note, "issue #12");

  const Baseline both = baseline_of({{"A", "alp", "FAIL", "issue #12", "", ""}, {"B", "alp", "FAIL", "issue #13", "", ""}});
  g = evaluate(doc, &both, Policy::must, "2025-02-01");
  EXPECT_EQ(g.exit_code, 0);
  EXPECT_THAT(ids(g.baselined), ElementsAre("A", "B"));
}

TEST(Gate, FixedBaselinedCaseFailsUntilTheBaselineIsUpdated) {
  const Json doc = run_of({make_case("A", "alp", "lifecycle", Verdict::pass)});
  const Baseline b = baseline_of({{"A", "alp", "FAIL", "issue #12", "", ""}});
  const Gate g = evaluate(doc, &b, Policy::must, "2025-02-01");
  EXPECT_EQ(g.exit_code, 1);
  EXPECT_THAT(ids(g.fixed), ElementsAre("A"));
  EXPECT_NE(g.summary.find("update the baseline"), std::string::npos);

  const Baseline updated = update_baseline(&b, doc, Policy::must, "2025-02-01");
  EXPECT_THAT(updated.entries, IsEmpty());
  EXPECT_EQ(evaluate(doc, &updated, Policy::must, "2025-02-01").exit_code, 0);
}

TEST(Gate, ExpiredEntryNoLongerTolerates) {
  const Json doc = run_of({make_case("A", "alp", "lifecycle", Verdict::fail)});
  const Baseline b = baseline_of({{"A", "alp", "FAIL", "until the fix ships", "2025-01-31", ""}});
  EXPECT_EQ(evaluate(doc, &b, Policy::must, "2025-01-31").exit_code, 0);  // the last day still applies
  const Gate g = evaluate(doc, &b, Policy::must, "2025-02-01");
  EXPECT_EQ(g.exit_code, 1);
  EXPECT_THAT(ids(g.expired), ElementsAre("A"));
  EXPECT_NE(g.expired[0].note.find("expired on 2025-01-31"), std::string::npos);
  // Updating does not silently extend it.
  const Baseline updated = update_baseline(&b, doc, Policy::must, "2025-02-01");
  ASSERT_EQ(updated.entries.size(), 1u);
  EXPECT_EQ(updated.entries[0].expires, "2025-01-31");
  EXPECT_EQ(updated.entries[0].reason, "until the fix ships");
}

TEST(Gate, ChangedFailingVerdictIsNotCoveredByTheEntry) {
  const Json doc = run_of({make_case("A", "alp", "lifecycle", Verdict::fail), make_case("B", "alp", "lifecycle", Verdict::error)});
  const Baseline b = baseline_of({{"A", "alp", "WARN", "only a warning", "", ""}, {"B", "alp", "FAIL", "known", "", ""}});
  const Gate g = evaluate(doc, &b, Policy::should, "2025-02-01");
  EXPECT_EQ(g.exit_code, 1);
  EXPECT_THAT(ids(g.new_failures), ElementsAre("A"));
  EXPECT_EQ(g.new_failures[0].note, "baselined as WARN, now FAIL");
  EXPECT_THAT(ids(g.errors), ElementsAre("B"));
}

TEST(Gate, ErrorsExitThreeUnreachableDominates) {
  const Json errors = run_of({make_case("A", "alp", "lifecycle", Verdict::pass), make_case("B", "alp", "lifecycle", Verdict::error)});
  EXPECT_EQ(evaluate(errors, nullptr, Policy::must, "2025-02-01").exit_code, 3);
  const Baseline b = baseline_of({{"B", "alp", "ERROR", "flaky upstream", "", ""}});
  EXPECT_EQ(evaluate(errors, &b, Policy::must, "2025-02-01").exit_code, 0);

  const Json mixed = run_of({make_case("A", "alp", "lifecycle", Verdict::fail), make_case("B", "alp", "lifecycle", Verdict::error)});
  EXPECT_EQ(evaluate(mixed, nullptr, Policy::must, "2025-02-01").exit_code, 1);  // a gated failure first
  EXPECT_EQ(evaluate(mixed, nullptr, Policy::must, "2025-02-01", /*unreachable=*/true).exit_code, 3);
}

TEST(Gate, FailOnShouldGatesWarnings) {
  const Json doc = run_of({make_case("A", "alp", "lifecycle", Verdict::warn, "SHOULD")});
  EXPECT_EQ(evaluate(doc, nullptr, Policy::must, "2025-02-01").exit_code, 0);
  const Gate g = evaluate(doc, nullptr, Policy::should, "2025-02-01");
  EXPECT_EQ(g.exit_code, 1);
  EXPECT_THAT(ids(g.new_failures), ElementsAre("A"));
}

TEST(Gate, EntriesOfCasesThatDidNotRunAreNeitherFixedNorDropped) {
  const Json doc = run_of({make_case("A", "alp", "lifecycle", Verdict::pass)});
  const Baseline b = baseline_of({{"Z", "agora", "FAIL", "other protocol", "", ""}});
  const Gate g = evaluate(doc, &b, Policy::must, "2025-02-01");
  EXPECT_EQ(g.exit_code, 0);
  EXPECT_THAT(g.not_run, ElementsAre("Z"));
  const Baseline updated = update_baseline(&b, doc, Policy::must, "2025-02-01");
  ASSERT_EQ(updated.entries.size(), 1u);
  EXPECT_EQ(updated.entries[0].case_id, "Z");
}

// Issue 11, point 7: a baseline made under --fail-on should records WARN cases; the unchanged
// target judged later under the default policy (which does not gate WARN) must not see those
// entries as "now pass" (that exited 1), and updating the baseline there must not lose them.
TEST(Gate, ShouldBaselineStaysValidUnderTheDefaultPolicy) {
  const Json doc = run_of({make_case("A", "alp", "lifecycle", Verdict::warn, "SHOULD"), make_case("B", "alp", "lifecycle", Verdict::fail),
                           make_case("C", "alp", "lifecycle", Verdict::pass)});
  const Baseline made = update_baseline(nullptr, doc, Policy::should, "2025-02-01");
  ASSERT_EQ(made.entries.size(), 2u);
  EXPECT_EQ(made.entries[0].verdict, "WARN");

  const Gate must = evaluate(doc, &made, Policy::must, "2025-02-02");
  EXPECT_EQ(must.exit_code, 0) << must.summary;
  EXPECT_THAT(must.fixed, IsEmpty());
  EXPECT_THAT(ids(must.baselined), ElementsAre("B"));  // A is not gated under must: not "tolerated" either
  EXPECT_EQ(must.summary.find("now pass"), std::string::npos);
  const Gate should = evaluate(doc, &made, Policy::should, "2025-02-02");
  EXPECT_EQ(should.exit_code, 0) << should.summary;
  EXPECT_THAT(ids(should.baselined), ElementsAre("A", "B"));

  // Updating under must keeps the WARN entry while the case still warns, so --fail-on should
  // afterwards still passes; the entry's reason and date survive.
  const Baseline kept = update_baseline(&made, doc, Policy::must, "2025-03-01");
  ASSERT_EQ(kept.entries.size(), 2u);
  EXPECT_EQ(kept.entries[0].case_id, "A");
  EXPECT_EQ(kept.entries[0].added, "2025-02-01");
  EXPECT_EQ(evaluate(doc, &kept, Policy::should, "2025-03-01").exit_code, 0);

  // The WARN really gone (the case passes now) is a fix under either policy: the entry is stale.
  const Json better = run_of({make_case("A", "alp", "lifecycle", Verdict::pass), make_case("B", "alp", "lifecycle", Verdict::fail),
                              make_case("C", "alp", "lifecycle", Verdict::pass)});
  const Gate fixed = evaluate(better, &made, Policy::must, "2025-02-02");
  EXPECT_EQ(fixed.exit_code, 1);
  EXPECT_THAT(ids(fixed.fixed), ElementsAre("A"));
  EXPECT_EQ(update_baseline(&made, better, Policy::must, "2025-02-02").entries.size(), 1u);

  // A FAIL entry whose case only warns now is fixed under must (the FAIL is gone) and a changed
  // verdict under should, as before.
  const Baseline fail_a = baseline_of({{"A", "alp", "FAIL", "known", "", ""}, {"B", "alp", "FAIL", "known", "", ""}});
  EXPECT_THAT(ids(evaluate(doc, &fail_a, Policy::must, "2025-02-02").fixed), ElementsAre("A"));
  EXPECT_THAT(ids(evaluate(doc, &fail_a, Policy::should, "2025-02-02").new_failures), ElementsAre("A"));
}

TEST(UpdateBaseline, RecordsEveryFailureKeepsExistingReasons) {
  const Json doc = run_of({make_case("A", "alp", "lifecycle", Verdict::fail), make_case("B", "alp", "lifecycle", Verdict::error),
                           make_case("C", "alp", "lifecycle", Verdict::warn), make_case("D", "alp", "lifecycle", Verdict::pass)});
  const Baseline old = baseline_of({{"A", "alp", "FAIL", "issue #1", "2030-01-01", "2024-12-01"}});
  const Baseline b = update_baseline(&old, doc, Policy::must, "2025-02-01");
  ASSERT_EQ(b.entries.size(), 2u);
  EXPECT_EQ(b.entries[0].case_id, "A");
  EXPECT_EQ(b.entries[0].reason, "issue #1");
  EXPECT_EQ(b.entries[0].expires, "2030-01-01");
  EXPECT_EQ(b.entries[0].added, "2024-12-01");
  EXPECT_EQ(b.entries[1].case_id, "B");
  EXPECT_EQ(b.entries[1].verdict, "ERROR");
  EXPECT_EQ(b.entries[1].added, "2025-02-01");
  EXPECT_EQ(b.entries[1].reason, "accepted by --update-baseline: reason of B");
  EXPECT_EQ(evaluate(doc, &b, Policy::must, "2025-02-01").exit_code, 0);
  EXPECT_EQ(update_baseline(&old, doc, Policy::should, "2025-02-01").entries.size(), 3u);  // C too
}

TEST(BaselineParser, PreciseErrors) {
  auto err = [](const char* text) {
    auto r = baseline_from_json(Json::parse(text));
    return r ? std::string("accepted") : r.error();
  };
  EXPECT_EQ(err(R"({"format":"agentconform-baseline/1","entries":[]})"), "accepted");
  EXPECT_EQ(err(R"({"format":"x","entries":[]})"), "baseline: /format: must be \"agentconform-baseline/1\"");
  EXPECT_EQ(err(R"({"format":"agentconform-baseline/1","entries":[{"case":"A"}]})"),
            "baseline: /entries/0/reason: required, non-empty (say why the failure is accepted)");
  EXPECT_EQ(err(R"({"format":"agentconform-baseline/1","entries":[{"case":"A","reason":"r","expires":"tomorrow"}]})"),
            "baseline: /entries/0/expires: not a date (YYYY-MM-DD)");
  EXPECT_EQ(err(R"({"format":"agentconform-baseline/1","entries":[{"case":"A","reason":"r","verdict":"PASS"}]})"),
            "baseline: /entries/0/verdict: must be FAIL, ERROR or WARN");
  EXPECT_EQ(err(R"({"format":"agentconform-baseline/1","entries":[{"case":"A","reason":"r"},{"case":"A","reason":"s"}]})"),
            "baseline: case A is listed twice");
  EXPECT_EQ(err(R"({"format":"agentconform-baseline/1","entries":[{"case":"A","reason":"r","why":"x"}]})"),
            "baseline: /entries/0/why: unknown member");
  EXPECT_EQ(err(R"({"format":"agentconform-baseline/1","entries":[{"case":7,"reason":"r"}]})"),
            "baseline: /entries/0/case: must be a string");
  EXPECT_EQ(err(R"([])"), "baseline: the document must be an object");
}

TEST(Compare, RegressionsFixesAndChanges) {
  const Json old_doc = run_of({make_case("A", "alp", "lifecycle", Verdict::pass), make_case("B", "alp", "lifecycle", Verdict::fail),
                               make_case("C", "alp", "lifecycle", Verdict::fail), make_case("D", "alp", "lifecycle", Verdict::pass),
                               make_case("E", "alp", "lifecycle", Verdict::pass)});
  const Json new_doc = run_of({make_case("A", "alp", "lifecycle", Verdict::fail), make_case("B", "alp", "lifecycle", Verdict::pass),
                               make_case("C", "alp", "lifecycle", Verdict::error), make_case("D", "alp", "lifecycle", Verdict::pass),
                               make_case("F", "alp", "lifecycle", Verdict::fail), make_case("G", "alp", "lifecycle", Verdict::pass)});
  const Comparison c = compare(old_doc, new_doc, Policy::must);
  auto names = [](const std::vector<Change>& v) {
    std::vector<std::string> out;
    for (const auto& x : v) out.push_back(x.id + ":" + x.old_verdict + ">" + x.new_verdict);
    return out;
  };
  EXPECT_THAT(names(c.regressions), ElementsAre("A:PASS>FAIL", "F:>FAIL"));
  EXPECT_THAT(names(c.fixes), ElementsAre("B:FAIL>PASS"));
  EXPECT_THAT(names(c.changed), ElementsAre("C:FAIL>ERROR"));
  EXPECT_THAT(names(c.added), ElementsAre("G:>PASS"));
  EXPECT_THAT(names(c.removed), ElementsAre("E:PASS>"));
  EXPECT_EQ(c.unchanged, 1u);
  EXPECT_EQ(c.exit_code(), 1);
  EXPECT_EQ(compare(new_doc, new_doc, Policy::must).exit_code(), 0);
  EXPECT_EQ(compare(old_doc, old_doc, Policy::must).unchanged, 5u);
  const std::string text = to_text(c);
  EXPECT_NE(text.find("new failures (2):"), std::string::npos);
  EXPECT_NE(text.find("2 new failures, 1 fixed, 1 changed, 1 added, 1 removed, 1 unchanged"), std::string::npos);
}

}  // namespace
}  // namespace ac::reports::testing

// MUST coverage when nothing applies: "none applicable", never 100 %.
#include <gtest/gtest.h>

#include "harness/engine/coverage.hpp"
#include "harness/engine/run.hpp"

namespace ac::testing {
namespace {

TEST(Coverage, NothingApplicableIsNoneApplicableNotFull) {
  engine::CaseResult c;
  c.id = "X-1";
  c.protocol = "alp";
  c.role = "lobby";
  c.verdict = engine::Verdict::pass;
  const auto doc = engine::compute_coverage(engine::RequirementCatalog{}, {c}, {});
  EXPECT_EQ(doc["must"]["applicable"], 0);
  EXPECT_TRUE(doc["must"].value("none_applicable", false)) << doc.dump();
  EXPECT_EQ(doc["must"]["percent"], 0.0);
  EXPECT_TRUE(doc["protocols"]["alp"]["must"].value("none_applicable", false));
  EXPECT_FALSE(doc["protocols"]["alp"]["must"].value("hint", std::string()).empty());
}

// AgentProtocol's peer is an agent: the catalogue gives its MUSTs the role agent. A target declared
// as a peer only is still judged by them: the MUSTs its peer cases check count (they once read
// "0 of 0 (100.0%)" beside the peer cases' FAILs).
TEST(Coverage, ThePeerCasesMustsApplyToAPeer) {
  auto loaded = engine::load_all();
  ASSERT_TRUE(loaded) << loaded.error();
  engine::CaseResult c;
  for (const auto& suite : loaded->suites) {
    for (const auto& k : suite.cases) {
      if (k.protocol == "agentprotocol" && k.role == "peer" && c.id.empty()) {
        c.id = k.id;
        c.protocol = k.protocol;
        c.role = k.role;
        c.requirements = k.requirements;
      }
    }
  }
  ASSERT_FALSE(c.id.empty());
  c.verdict = engine::Verdict::fail;
  c.blamed = {c.requirements.front()};
  engine::TargetConfig t;
  t.protocol = "agentprotocol";
  t.roles = {"peer"};
  const auto doc = engine::compute_coverage(loaded->requirements, {c}, {{"agentprotocol", t}});
  EXPECT_GT(doc["must"]["applicable"].get<int>(), 0) << doc.dump();
  EXPECT_FALSE(doc["must"].value("none_applicable", false));
}

}  // namespace
}  // namespace ac::testing

// The client kill matrix: for each protocol with a reference agent (reference/agents/agents.hpp),
// `serve` runs every client-under-test case against that agent, which must pass them all, and
// against each of its faulty variants (`agent --misbehave NAME`), each of which at least one
// client case must fail. A variant no case catches is a hole in the client cases.
// AC_CLIENT_KILL_MATRIX_SHARD="i/n" keeps the variants whose index is i modulo n (and the reference
// agent's own run in shard 0), so CTest can run a long matrix as parallel entries; unset, all.
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "harness/engine/serve.hpp"
#include "reference/agents/agents.hpp"
#include "tests/conformance/conformance_support.hpp"

namespace ac::testing {
namespace {

engine::RunResult serve_agent(const std::string& protocol, const std::string& agent_flags) {
  engine::ServeOptions o;
  o.protocol = protocol;
  o.command = std::string(AC_CLI) + " agent --protocol " + protocol + " --heartbeat-ms 300 " + agent_flags;
  o.quiet = true;
  std::ostringstream sink;
  auto r = engine::serve(loaded(), o, sink);
  if (!r) throw std::runtime_error(r.error());
  return *r;
}

std::vector<std::string> agent_protocols() {
  std::vector<std::string> out;
  for (const auto& a : ref::reference_agents()) out.push_back(a.protocol);
  return out;
}

struct Shard {
  std::size_t index = 0, count = 1;
};
Shard shard_from_env() {
  Shard shard;
  const char* text = std::getenv("AC_CLIENT_KILL_MATRIX_SHARD");
  if (text == nullptr) return shard;
  unsigned i = 0, n = 0;
  if (std::sscanf(text, "%u/%u", &i, &n) == 2 && n > 0 && i < n) shard = {i, n};
  return shard;
}

class ClientKillMatrix : public ::testing::TestWithParam<std::string> {};

TEST_P(ClientKillMatrix, ReferenceAgentPassesEveryClientCase) {
  if (shard_from_env().index != 0) GTEST_SKIP() << "the reference agent runs in shard 0";
  const auto r = serve_agent(GetParam(), "");
  ASSERT_FALSE(r.cases.empty()) << "no client case for " << GetParam();
  for (const auto& c : r.cases) EXPECT_EQ(c.verdict, engine::Verdict::pass) << c.id << ": " << c.reason;
}

TEST_P(ClientKillMatrix, EveryFaultyVariantFailsAClientCase) {
  const ref::ReferenceAgent* agent = ref::find_reference_agent(GetParam());
  ASSERT_NE(agent, nullptr);
  ASSERT_FALSE(agent->misbehaviours.empty()) << GetParam() << "'s agent has no faulty variant to prove the client cases with";
  const Shard shard = shard_from_env();
  for (std::size_t i = 0; i < agent->misbehaviours.size(); ++i) {
    if (i % shard.count != shard.index) continue;
    const auto& m = agent->misbehaviours[i];
    const auto r = serve_agent(GetParam(), "--misbehave " + m.name);
    std::vector<std::string> caught;
    for (const auto& c : r.cases)
      if (c.verdict == engine::Verdict::fail || c.verdict == engine::Verdict::warn) caught.push_back(c.id);
    EXPECT_FALSE(caught.empty()) << GetParam() << " agent --misbehave " << m.name << " (" << m.breaks
                                 << ") passes every client case: no case checks what it breaks";
  }
}

INSTANTIATE_TEST_SUITE_P(Agents, ClientKillMatrix, ::testing::ValuesIn(agent_protocols()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace ac::testing

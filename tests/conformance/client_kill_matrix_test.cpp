// The client kill matrix: for each protocol with a reference agent (reference/agents/agents.hpp),
// `serve` runs every client-under-test case against that agent, which must pass them all, and
// against each of its faulty variants (`agent --misbehave NAME`), each of which at least one
// client case must fail. A variant no case catches is a hole in the client cases.
#include <algorithm>
#include <future>
#include <iostream>
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

// Issue 14: both ends of every protocol are tested, so every protocol has its reference client.
TEST(ReferenceAgents, ExistForEveryProtocol) {
  for (const char* p : {"alp", "agora", "agentprotocol", "a2acp", "chopsticks"})
    EXPECT_NE(ref::find_reference_agent(p), nullptr) << "no reference agent for " << p;
}

class ClientKillMatrix : public ::testing::TestWithParam<std::string> {};

TEST_P(ClientKillMatrix, ReferenceAgentPassesEveryClientCase) {
  const auto r = serve_agent(GetParam(), "");
  ASSERT_FALSE(r.cases.empty()) << "no client case for " << GetParam();
  for (const auto& c : r.cases) EXPECT_EQ(c.verdict, engine::Verdict::pass) << c.id << ": " << c.reason;
}

TEST_P(ClientKillMatrix, EveryFaultyVariantFailsAClientCase) {
  const ref::ReferenceAgent* agent = ref::find_reference_agent(GetParam());
  ASSERT_NE(agent, nullptr);
  ASSERT_FALSE(agent->misbehaviours.empty()) << GetParam() << "'s agent has no faulty variant to prove the client cases with";
  // The variants run side by side, each with its own serve (own port, own client processes): a
  // variant spends its time waiting out the step timeout its fault breaks, so in a row they would
  // take minutes.
  std::vector<std::future<engine::RunResult>> runs;
  for (const auto& m : agent->misbehaviours)
    runs.push_back(std::async(std::launch::async, serve_agent, GetParam(), "--misbehave " + m.name));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& m = agent->misbehaviours[i];
    const auto r = runs[i].get();
    std::vector<std::string> caught;
    for (const auto& c : r.cases)
      if (c.verdict == engine::Verdict::fail || c.verdict == engine::Verdict::warn) caught.push_back(c.id);
    EXPECT_FALSE(caught.empty()) << GetParam() << " agent --misbehave " << m.name << " (" << m.breaks
                                 << ") passes every client case: no case checks what it breaks";
    std::string by;
    for (const auto& id : caught) by += " " + id;
    std::cout << GetParam() << " agent --misbehave " << m.name << ": killed by" << (by.empty() ? " nothing" : by) << "\n";
    for (const auto& id : m.caught_by)
      EXPECT_NE(std::find(caught.begin(), caught.end(), id), caught.end())
          << id << " must fail against --misbehave " << m.name << " (" << m.breaks << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Agents, ClientKillMatrix, ::testing::ValuesIn(agent_protocols()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace ac::testing

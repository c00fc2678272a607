// Client-under-test mode, proven with the reference Chopsticks agent as the client: a deliberately
// broken agent fails the very cases tied to what it breaks.
#include <set>

#include <sstream>

#include "harness/engine/serve.hpp"
#include "tests/conformance/conformance_support.hpp"

namespace ac::testing {
namespace {

engine::RunResult serve_chopsticks(const std::string& agent_flags) {
  engine::ServeOptions o;
  o.protocol = "chopsticks";
  o.command = std::string(AC_CLI) + " agent --protocol chopsticks --heartbeat-ms 300 " + agent_flags;
  o.quiet = true;
  std::ostringstream sink;
  auto r = engine::serve(loaded(), o, sink);
  if (!r) throw std::runtime_error(r.error());
  return *r;
}

std::set<std::string> failing(const engine::RunResult& r) {
  std::set<std::string> out;
  for (const auto& c : r.cases) {
    if (c.verdict == engine::Verdict::fail || c.verdict == engine::Verdict::warn) out.insert(c.id);
  }
  return out;
}

// That the reference agent passes every client case, and that each --misbehave variant fails the
// cases its Misbehaviour::caught_by names, is in client_kill_matrix_test.cpp.

TEST(Serve, AgentAnnouncingAnotherVersionFailsTheHelloCase) {
  const auto f = failing(serve_chopsticks("--protocol-version 2.0.0"));
  EXPECT_TRUE(f.count("CHOP-HS-101"));
}

}  // namespace
}  // namespace ac::testing

// Shared support of the model-based tests (RapidCheck rc::state against the reference lobby).
//
// Why not RC_GTEST_PROP: an honesty test must run the very same property against a lobby with a
// fault and require that it FAILS, without failing the gtest. check_bounded() therefore runs a
// property through rc::detail::checkTestable and hands back the TestResult; expect_success() and
// expect_failure() turn it into a gtest verdict. The bounds (successful runs, sequence length)
// are set here in code so every protocol's test stays short under ASan; RC_PARAMS still wins for
// max_success, max_size and seed (replaying a failure).
//
// Inside a property only RapidCheck assertions are used (require(), RC_ASSERT): a gtest EXPECT
// would fail the test instead of the case, and RapidCheck could neither shrink it nor, in an
// honesty test, report it as the expected failure. Every wait is bounded.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/json/strict_reader.hpp"
#include "harness/net/client.hpp"

namespace ac::testing::model {

using Json = nlohmann::json;
using namespace std::chrono_literals;

// How long an expected frame may take. Generous because the machine is slow and shared under
// ASan; only a failing run (a frame that never comes) waits this long. Nothing asserts a time.
inline constexpr std::chrono::milliseconds kFrameWait{2000};

// Fails the current RapidCheck case with `what` unless `ok`.
inline void require(bool ok, const std::string& what) {
  if (!ok) RC_FAIL(what);
}

// Uniform choices for command generators. rc::gen::inRange scales its range with RapidCheck's
// size (a short sequence would use slot 0 almost always); element/elementOf do not.
inline int pick(int lo, int hi) {  // [lo, hi)
  std::vector<int> values;
  for (int v = lo; v < hi; ++v) values.push_back(v);
  return *rc::gen::elementOf(values);
}
inline bool coin() { return *rc::gen::element(false, true); }

// A command's precondition (discards it when false). RC_PRE itself decomposes its expression
// for the message, so `a && b` inside it would evaluate b even when a is false.
inline void pre(bool ok) { RC_PRE(ok); }

// Where the lobby of the current test listens, and the client runtime to reach it.
struct Target {
  net::Runtime* runtime = nullptr;
  std::string http_base;  // http://127.0.0.1:PORT
  std::string ws_base;    // ws://127.0.0.1:PORT
};

// A prefix no other run of any property in this process uses: runs share one lobby, so every
// agent id, capability name and stream id of a run carries it.
inline std::string run_prefix(const std::string& tag) {
  static std::atomic<int> counter{0};
  return tag + "-r" + std::to_string(counter.fetch_add(1));
}

inline std::string show_event(const net::WsEvent& e) {
  std::ostringstream os;
  switch (e.kind) {
    case ws::Event::Kind::text: os << "text " << e.data; break;
    case ws::Event::Kind::binary: os << "binary frame of " << e.data.size() << " bytes"; break;
    case ws::Event::Kind::ping: os << "ping"; break;
    case ws::Event::Kind::pong: os << "pong " << e.data; break;
    case ws::Event::Kind::close: os << "close " << e.close_code << " " << e.close_reason << (e.transport_closed ? " (transport)" : ""); break;
    case ws::Event::Kind::violation: os << "RFC 6455 violation: " << e.data; break;
  }
  return os.str();
}

// The next event that is not a server keep-alive ping (the network layer's business, not the
// protocol's), or nullopt when none comes within `wait`.
inline std::optional<net::WsEvent> next_event(net::WsClient& c, std::chrono::milliseconds wait) {
  const auto until = std::chrono::steady_clock::now() + wait;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    auto e = c.next(std::max(left, std::chrono::milliseconds(0)));
    if (!e || e->kind != ws::Event::Kind::ping) return e;
  }
}

// The next event of `c` must be a text frame holding JSON; `who` and `expected` name it in the
// failure message (which RapidCheck prints next to the shrunk command sequence).
inline Json recv_json(net::WsClient& c, const std::string& who, const std::string& expected,
                      std::chrono::milliseconds wait = kFrameWait) {
  auto e = next_event(c, wait);
  require(e.has_value(), who + ": expected " + expected + ", nothing arrived within " + std::to_string(wait.count()) + " ms");
  require(e->kind == ws::Event::Kind::text, who + ": expected " + expected + ", got " + show_event(*e));
  auto j = json::parse_strict(e->data);
  require(j.has_value(), who + ": expected " + expected + ", got a frame that is not JSON: " + e->data);
  return *j;
}

// Nothing is queued for `c`: the pong to a WebSocket ping must be the next event. The server
// reads a connection's frames in order and handles each before reading the next, so whatever it
// produced for earlier input is queued before it even reads the ping: no sleep needed.
inline void expect_quiet(net::WsClient& c, const std::string& who) {
  static std::atomic<int> counter{0};
  const std::string payload = "barrier-" + std::to_string(counter.fetch_add(1));
  c.ping(payload);
  auto e = next_event(c, kFrameWait);
  require(e.has_value(), who + ": no pong to the barrier ping within " + std::to_string(kFrameWait.count()) + " ms");
  require(e->kind == ws::Event::Kind::pong && e->data == payload, who + ": expected nothing, got " + show_event(*e));
}

// The next event must be the connection's close; returns it.
inline net::WsEvent recv_close(net::WsClient& c, const std::string& who) {
  auto e = next_event(c, kFrameWait);
  require(e.has_value(), who + ": expected the connection to close, nothing happened");
  require(e->kind == ws::Event::Kind::close, who + ": expected the connection to close, got " + show_event(*e));
  return *e;
}

// Closes `c` (1000) and waits for the server's side of the close (bounded); any frame still
// queued before the close is a frame the model did not predict.
inline void close_and_drain(net::WsClient& c, const std::string& who) {
  c.close(1000, "bye");
  recv_close(c, who);
}

// Polls `done` every 10 ms for at most `limit` and returns its last answer (for state the
// server changes after an event the client cannot observe, such as a close being processed).
inline bool eventually(const std::function<bool()>& done, std::chrono::milliseconds limit = 3000ms) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(10ms);
  }
}

// ---- HTTP -----------------------------------------------------------------------------------

inline net::HttpResult http_call(const Target& t, const std::string& method, const std::string& path, const std::string& body = {},
                                 net::Headers headers = {}) {
  if (!body.empty()) headers.emplace("content-type", "application/json");
  auto r = net::http_request(*t.runtime, net::HttpCall{method, t.http_base + path, headers, body});
  require(r.has_value(), method + " " + path + ": " + (r ? std::string() : r.error().describe()));
  return *r;
}

inline Json json_body(const net::HttpResult& r, const std::string& what) {
  auto j = json::parse_strict(r.body);
  require(j.has_value(), what + ": the body is not JSON: " + r.body);
  return *j;
}

inline Json get_json(const Target& t, const std::string& path) {
  auto r = http_call(t, "GET", path);
  require(r.status == 200, "GET " + path + " answered " + std::to_string(r.status) + ": " + r.body);
  return json_body(r, "GET " + path);
}

inline std::shared_ptr<net::WsClient> ws_connect(const Target& t, const std::string& path, const std::string& who) {
  auto c = net::WsClient::connect(*t.runtime, t.ws_base + path, net::WsConnectOptions{});
  require(c.has_value(), who + ": WebSocket " + path + " failed: " + (c ? std::string() : c.error().describe()));
  return *c;
}

// ---- coverage -------------------------------------------------------------------------------

// How often each predicted outcome was exercised (printed after a passing property), so that a
// reader sees the model is not vacuous: a branch never taken would show as missing here.
inline std::map<std::string, int>& coverage() {
  static std::map<std::string, int> counts;
  return counts;
}
inline void cover(const std::string& outcome) { ++coverage()[outcome]; }
inline std::string coverage_report() {
  std::ostringstream os;
  for (const auto& [outcome, n] : coverage()) os << "  " << outcome << ": " << n << "\n";
  coverage().clear();
  return os.str();
}

// ---- running a property ---------------------------------------------------------------------

struct Bounds {
  int max_success = 10;  // command sequences that must pass
  int max_size = 20;     // RapidCheck's size: a sequence has at most max_size + 1 commands
  bool shrink = true;    // honesty tests turn it off: a detected fault needs no minimal example
  std::optional<std::uint64_t> seed;  // fixed seed (honesty tests: a reproducible detection)
  // Honesty tests: the failure is the expected outcome, so it is not reported to RapidCheck's
  // global listener (which would print "some properties had failures, reproduce with ..." at exit).
  bool failure_expected = false;
};

// Listens to nothing (see Bounds::failure_expected).
class SilentListener final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

// Runs `property` under `bounds`; RC_PARAMS overrides max_success, max_size and seed.
template <typename Property>
rc::detail::TestResult check_bounded(const std::string& id, Property&& property, const Bounds& bounds) {
  using namespace rc::detail;
  TestParams params = configuration().testParams;
  const char* env = std::getenv("RC_PARAMS");
  const std::string given = env != nullptr ? env : "";
  if (given.find("max_success") == std::string::npos) params.maxSuccess = bounds.max_success;
  if (given.find("max_size") == std::string::npos) params.maxSize = bounds.max_size;
  if (given.find("seed") == std::string::npos && bounds.seed) params.seed = *bounds.seed;
  params.disableShrinking = params.disableShrinking || !bounds.shrink;
  TestMetadata metadata;
  metadata.id = id;
  metadata.description = id;
  if (bounds.failure_expected) {
    SilentListener silent;
    return checkTestable(std::forward<Property>(property), metadata, params, silent);
  }
  return checkTestable(std::forward<Property>(property), metadata, params);
}

inline std::string describe(const rc::detail::TestResult& result) {
  std::ostringstream os;
  rc::detail::printResultMessage(result, os);
  return os.str();
}

// The bounds of an honesty run: `base` with a fixed seed (the same sequences every time, so a
// detection is reproducible), more runs to reach the faulty rule, no shrinking (a detected fault
// needs no minimal example; shrinking against a lobby would take long).
inline Bounds honesty_bounds(Bounds base, std::uint64_t seed) {
  base.max_success = 40;
  base.shrink = false;
  base.failure_expected = true;
  base.seed = seed;
  return base;
}

// One honesty case: a fault of reference/<protocol>/faults.json and a text the failure it causes
// must contain (what the model predicted there, or what the faulty lobby did instead).
struct FaultCase {
  const char* fault;
  const char* marker;
};
inline std::ostream& operator<<(std::ostream& os, const FaultCase& f) { return os << f.fault; }
// gtest parameter names: the fault name with its punctuation replaced.
inline std::string fault_case_name(const ::testing::TestParamInfo<FaultCase>& info) {
  std::string name = info.param.fault;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// The faithful lobby: every sequence must pass.
inline void expect_success(const rc::detail::TestResult& result) {
  EXPECT_TRUE(result.is<rc::detail::SuccessResult>()) << describe(result);
  const std::string outcomes = coverage_report();
  if (result.is<rc::detail::SuccessResult>()) {
    std::cout << describe(result) << "\noutcomes the model predicted and the lobby produced (commands, over all runs):\n" << outcomes << std::flush;
  }
}

// The lobby with a fault: the property must fail, and for the reason the fault causes (the
// failure description must contain `marker`), not because of some unrelated problem.
inline void expect_failure(const rc::detail::TestResult& result, const std::string& marker) {
  ASSERT_TRUE(result.is<rc::detail::FailureResult>()) << "the model did not detect the fault:\n" << describe(result);
  const auto& failure = result.get<rc::detail::FailureResult>();
  EXPECT_NE(failure.description.find(marker), std::string::npos)
      << "the property failed, but not where the fault shows (expected \"" << marker << "\"):\n" << describe(result);
  std::cout << "[honesty] the fault was detected:\n" << describe(result) << std::endl;
  coverage().clear();
}

}  // namespace ac::testing::model

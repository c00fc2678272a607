// Model-based test of the AgentProtocol 0.1 hub (RapidCheck rc::state): mock agents with their
// own Ed25519 keys connect to /agentprotocol/ws and, in random order, say hello (supported and
// unsupported versions), call the reference agent's demo actions (instant ones, and slow ones
// that stay pending and end in a response or a TIMEOUT), send a request with a broken
// signature, relay notifies to each other (connected, disconnected and unknown agents),
// broadcast, and disconnect. The model: which agents are connected, which are bound (a
// connection becomes reachable by relay once a verified message came over it), and the requests
// pending at the reference agent per sender. Every message of the reference agent must be
// schema-valid and signed by its key; relayed messages must arrive unchanged.
//
// Pending answers arrive whenever their timer fires, between other frames: the reader sets
// them aside (by correlationId) and AwaitPending checks them. "Nothing else arrives" is a
// WebSocket ping barrier (the hub handles a connection's frames in order).
#include <deque>
#include <map>
#include <set>

#include "tests/model/model_support.hpp"
#include "tests/ref_agentprotocol/ap_support.hpp"

namespace ac::testing {
namespace {

using namespace model;

constexpr int kSlots = 3;     // mock agents: slot -> its own key
constexpr int kGhost = -1;    // an agent that never connects
constexpr std::size_t kMaxPending = 3;

// ---- the model ------------------------------------------------------------------------------

struct ApAgentModel {
  bool connected = false;
  bool bound = false;           // a verified message came over the current connection
  std::deque<bool> pending;     // slow requests in flight, in order: true = ends in TIMEOUT
};

struct ApState {
  std::map<int, ApAgentModel> agents;
  bool connected(int slot) const { return slot != kGhost && agents.count(slot) != 0 && agents.at(slot).connected; }
  bool bound(int slot) const { return connected(slot) && agents.at(slot).bound; }
  std::size_t bound_count() const {
    std::size_t n = 0;
    for (const auto& [slot, a] : agents) n += a.connected && a.bound;
    return n;
  }
};

// ---- the system under test ------------------------------------------------------------------

struct ApSut {
  Target target;
  std::string reference_id;
  std::map<int, MockAgent> keys;  // one identity per slot for the whole run (reconnects keep it)
  std::map<int, std::shared_ptr<net::WsClient>> conns;
  std::map<int, std::deque<std::string>> pending;  // correlationIds of the slow requests, in order
  std::map<int, std::map<std::string, Json>> early;  // their answers, read while looking for something else
  int sequence = 0;

  ApSut(Target t, std::string reference) : target(std::move(t)), reference_id(std::move(reference)) {}
  ~ApSut() {
    for (auto& [slot, c] : conns) c->close(1000, "run over");
  }
  MockAgent& agent(int slot) {
    auto it = keys.find(slot);
    if (it == keys.end()) it = keys.emplace(slot, MockAgent::make()).first;
    return it->second;
  }
  std::string name(int slot) { return slot == kGhost ? "ghost" : "agent " + std::to_string(slot); }
  net::WsClient& ws(int slot) {
    require(conns.count(slot) != 0, "the SUT has no connection for " + name(slot));
    return *conns.at(slot);
  }
  std::string correlation() { return "corr-" + std::to_string(++sequence); }

  // The JSON of a text frame event (nullopt for anything else).
  static std::optional<Json> text_json(const net::WsEvent& e) {
    if (e.kind != ws::Event::Kind::text) return std::nullopt;
    auto j = json::parse_strict(e.data);
    return j ? std::optional<Json>(*j) : std::nullopt;
  }

  // True (and kept aside) when `frame` answers one of `slot`'s pending slow requests.
  bool set_aside(int slot, const Json& frame) {
    const Json* c = frame.contains("payload") && frame["payload"].is_object() && frame["payload"].contains("correlationId")
                        ? &frame["payload"]["correlationId"]
                        : nullptr;
    if (c == nullptr || !c->is_string()) return false;
    const auto& p = pending[slot];
    if (std::find(p.begin(), p.end(), c->get<std::string>()) == p.end()) return false;
    early[slot][c->get<std::string>()] = frame;
    return true;
  }

  // The next frame for `slot` other than answers to its pending requests.
  Json next(int slot, const std::string& expected) {
    for (;;) {
      Json j = recv_json(ws(slot), name(slot), expected);
      if (!set_aside(slot, j)) return j;
    }
  }

  // Nothing for `slot` but (possibly) answers to its pending requests.
  void quiet(int slot) {
    const std::string payload = "barrier-" + std::to_string(++sequence);
    ws(slot).ping(payload);
    for (;;) {
      auto e = next_event(ws(slot), kFrameWait);
      require(e.has_value(), name(slot) + ": no pong to the barrier ping");
      if (e->kind == ws::Event::Kind::pong && e->data == payload) return;
      auto j = text_json(*e);
      require(j.has_value() && set_aside(slot, *j), name(slot) + ": expected nothing, got " + show_event(*e));
    }
  }

  // A message of the reference agent: schema-valid, signed with its key, addressed to `slot`.
  void check_from_reference(int slot, const Json& m) {
    auto typed = ap::from_json(m);
    require(typed.has_value(), name(slot) + ": the reference sent a message violating schemas/agentprotocol (" +
                                   (typed ? std::string() : typed.error().describe()) + "): " + m.dump());
    auto verified = ap::verify(m);
    require(verified.has_value(), name(slot) + ": the reference's signature does not verify (" +
                                      (verified ? std::string() : verified.error().describe()) + "): " + m.dump());
    require(m["from"]["agentId"] == reference_id && m["to"]["agentId"] == agent(slot).id,
            name(slot) + ": the message is not from the reference to this agent: " + m.dump());
  }

  // The next frame must be the reference's error `code`, echoing `correlation` when given.
  Json expect_error(int slot, const std::string& code, const std::optional<std::string>& correlation) {
    Json e = next(slot, "error " + code);
    check_from_reference(slot, e);
    require(e["type"] == "error" && e["payload"]["code"] == code, name(slot) + ": expected error " + code + ", got " + e.dump());
    if (correlation) {
      require(e["payload"].value("correlationId", "") == *correlation, name(slot) + ": the error does not echo correlationId " + *correlation + ": " + e.dump());
    }
    return e;
  }

  std::int64_t connected_agents() {
    return get_json(target, "/healthz")["protocols"]["agentprotocol"]["connected_agents"].get<std::int64_t>();
  }
};

using ApCommand = rc::state::Command<ApState, ApSut>;

int any_slot() { return pick(0, kSlots); }

// ---- commands -------------------------------------------------------------------------------

// A new WebSocket: not reachable by relay until a verified message came over it.
struct Connect : ApCommand {
  int slot = any_slot();
  explicit Connect(const ApState& s) { pre(!s.connected(slot)); }
  void checkPreconditions(const ApState& s) const override { pre(!s.connected(slot)); }
  void apply(ApState& s) const override { s.agents[slot] = ApAgentModel{true, false, {}}; }
  void run(const ApState&, ApSut& sut) const override {
    sut.conns[slot] = ws_connect(sut.target, "/agentprotocol/ws", sut.name(slot));
    sut.pending[slot].clear();
    sut.early[slot].clear();
    cover("connect");
  }
  void show(std::ostream& os) const override { os << "Connect(" << slot << ")"; }
};

// A signed hello: the reference's hello (version 0.1, its capabilities) for a supported
// version, INVALID_MESSAGE at /payload/version otherwise. Either way the sender is verified.
struct Hello : ApCommand {
  int slot = any_slot();
  bool supported = *rc::gen::weightedElement<bool>({{3, true}, {1, false}});
  explicit Hello(const ApState& s) { pre(s.connected(slot)); }
  void checkPreconditions(const ApState& s) const override { pre(s.connected(slot)); }
  void apply(ApState& s) const override { s.agents[slot].bound = true; }
  void run(const ApState&, ApSut& sut) const override {
    sut.ws(slot).send_text(sut.agent(slot).hello(sut.reference_id, supported ? "0.1" : "9.9").dump());
    cover(supported ? "hello 0.1: hello" : "hello 9.9: INVALID_MESSAGE");
    if (!supported) {
      Json e = sut.expect_error(slot, "INVALID_MESSAGE", std::nullopt);
      require(e["payload"]["details"].value("pointer", "") == "/payload/version", "the version error must point at /payload/version: " + e.dump());
      return;
    }
    Json h = sut.next(slot, "hello");
    sut.check_from_reference(slot, h);
    require(h["type"] == "hello" && h["payload"]["version"] == "0.1", sut.name(slot) + ": expected the reference's hello, got " + h.dump());
    const Json& caps = h["from"]["capabilities"];
    require(std::find(caps.begin(), caps.end(), Json("agentconform:echo")) != caps.end(), "the hello lists no agentconform:echo: " + h.dump());
  }
  void show(std::ostream& os) const override { os << "Hello(" << slot << (supported ? ", 0.1" : ", 9.9") << ")"; }
};

// A signed request for a demo action, answered at once: the action's result (echo, reverse,
// sum), INTERNAL_ERROR (fail) or CAPABILITY_NOT_SUPPORTED (an action it does not serve), each
// echoing the correlationId.
struct Request : ApCommand {
  int slot = any_slot();
  int action = pick(0, 5);
  explicit Request(const ApState& s) { pre(s.connected(slot)); }
  void checkPreconditions(const ApState& s) const override { pre(s.connected(slot)); }
  void apply(ApState& s) const override { s.agents[slot].bound = true; }
  static constexpr const char* kNames[] = {"echo", "reverse", "sum", "fail", "teleport"};
  void run(const ApState&, ApSut& sut) const override {
    const int n = ++sut.sequence;
    const Json params[] = {{{"n", n}}, {{"text", "ab" + std::to_string(n)}}, {{"numbers", {n, 2, 3}}}, Json::object(), Json::object()};
    const Json results[] = {{{"n", n}}, {{"text", [&] { auto t = "ab" + std::to_string(n); return std::string(t.rbegin(), t.rend()); }()}},
                            {{"sum", n + 5}}, nullptr, nullptr};
    const std::string corr = sut.correlation();
    sut.ws(slot).send_text(sut.agent(slot).request(sut.reference_id, kNames[action], params[action], corr).dump());
    cover(std::string("request ") + kNames[action]);
    if (action == 3) return (void)sut.expect_error(slot, "INTERNAL_ERROR", corr);
    if (action == 4) return (void)sut.expect_error(slot, "CAPABILITY_NOT_SUPPORTED", corr);
    Json r = sut.next(slot, "response to " + corr);
    sut.check_from_reference(slot, r);
    require(r["type"] == "response" && r["payload"]["correlationId"] == corr && r["payload"]["status"] == "success" &&
                r["payload"]["result"] == results[action],
            sut.name(slot) + ": expected the " + kNames[action] + " response " + results[action].dump() + " for " + corr + ", got " + r.dump());
  }
  void show(std::ostream& os) const override { os << "Request(" << slot << ", " << kNames[action] << ")"; }
};

// A slow request (the sleep action) left pending: with a timeout shorter than the sleep it ends
// in TIMEOUT, without one in its response. AwaitPending collects the outcome.
struct SlowRequest : ApCommand {
  int slot = any_slot();
  bool times_out = coin();
  explicit SlowRequest(const ApState& s) { pre(s.connected(slot) && s.agents.at(slot).pending.size() < kMaxPending); }
  void checkPreconditions(const ApState& s) const override { pre(s.connected(slot) && s.agents.at(slot).pending.size() < kMaxPending); }
  void apply(ApState& s) const override {
    s.agents[slot].bound = true;
    s.agents[slot].pending.push_back(times_out);
  }
  void run(const ApState&, ApSut& sut) const override {
    const std::string corr = sut.correlation();
    sut.pending[slot].push_back(corr);
    const Json params = {{"ms", times_out ? 400 : 40}};
    sut.ws(slot).send_text(sut.agent(slot).request(sut.reference_id, "sleep", params, corr, times_out ? std::optional<std::int64_t>(30) : std::nullopt).dump());
    cover(times_out ? "slow request: pending, then TIMEOUT" : "slow request: pending, then its response");
    // Nothing answers now; the barrier makes sure the hub has handled (and bound) the request
    // before another connection's frame relies on it.
    sut.quiet(slot);
  }
  void show(std::ostream& os) const override { os << "SlowRequest(" << slot << (times_out ? ", times out" : "") << ")"; }
};

// Every pending request of `slot` ends as the model says (TIMEOUT or its response), answers
// read earlier included.
void await_pending(const ApState& s, ApSut& sut, int slot) {
  const auto& outcomes = s.agents.at(slot).pending;
  const auto correlations = sut.pending[slot];
  require(correlations.size() == outcomes.size(), "the SUT lost track of the pending requests");
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const std::string& corr = correlations[i];
    while (sut.early[slot].count(corr) == 0) {
      Json j = recv_json(sut.ws(slot), sut.name(slot), "the answer to pending " + corr);
      require(sut.set_aside(slot, j), sut.name(slot) + ": waiting for pending answers, got " + j.dump());
    }
    Json a = sut.early[slot][corr];
    cover(outcomes[i] ? "pending request ended: TIMEOUT" : "pending request ended: response");
    sut.check_from_reference(slot, a);
    if (outcomes[i]) {
      require(a["type"] == "error" && a["payload"]["code"] == "TIMEOUT", sut.name(slot) + ": " + corr + " should have timed out: " + a.dump());
    } else {
      require(a["type"] == "response" && a["payload"]["result"] == Json{{"slept_ms", 40}},
              sut.name(slot) + ": " + corr + " should have answered slept_ms 40: " + a.dump());
    }
  }
  sut.pending[slot].clear();
  sut.early[slot].clear();
}

struct AwaitPending : ApCommand {
  int slot = any_slot();
  explicit AwaitPending(const ApState& s) { pre(s.connected(slot) && !s.agents.at(slot).pending.empty()); }
  void checkPreconditions(const ApState& s) const override { pre(s.connected(slot) && !s.agents.at(slot).pending.empty()); }
  void apply(ApState& s) const override { s.agents[slot].pending.clear(); }
  void run(const ApState& s, ApSut& sut) const override { await_pending(s, sut, slot); }
  void show(std::ostream& os) const override { os << "AwaitPending(" << slot << ")"; }
};

// A request whose signature does not match its content: INVALID_SIGNATURE (correlationId
// echoed), not processed, and the connection is not bound by it.
struct BadSignature : ApCommand {
  int slot = any_slot();
  explicit BadSignature(const ApState& s) { pre(s.connected(slot)); }
  void checkPreconditions(const ApState& s) const override { pre(s.connected(slot)); }
  void run(const ApState&, ApSut& sut) const override {
    const std::string corr = sut.correlation();
    Json m = sut.agent(slot).request(sut.reference_id, "echo", {{"amount", 1}}, corr);
    m["payload"]["params"]["amount"] = 1000;  // changed after signing
    sut.ws(slot).send_text(m.dump());
    sut.expect_error(slot, "INVALID_SIGNATURE", corr);
    cover("bad signature: INVALID_SIGNATURE");
  }
  void show(std::ostream& os) const override { os << "BadSignature(" << slot << ")"; }
};

// A signed notify to another agent: relayed unchanged to a bound agent (the sender gets
// nothing), UNKNOWN_AGENT when no connection is bound to that agentId. The sender is verified
// (and bound) before the lookup, so it can reach itself.
struct Relay : ApCommand {
  int from = any_slot();
  int to = pick(kGhost, kSlots);
  explicit Relay(const ApState& s) { pre(s.connected(from)); }
  void checkPreconditions(const ApState& s) const override { pre(s.connected(from)); }
  void apply(ApState& s) const override { s.agents[from].bound = true; }
  void run(const ApState& s0, ApSut& sut) const override {
    ApState s = s0;
    apply(s);
    const std::string to_id = to == kGhost ? sut.agent(kGhost).id : sut.agent(to).id;
    const Json m = sut.agent(from).message("notify", {{"n", ++sut.sequence}}, to_id);
    sut.ws(from).send_text(m.dump());
    cover(!s.bound(to) ? (to != kGhost && s0.connected(to) ? "relay: UNKNOWN_AGENT (connected, not verified)" : "relay: UNKNOWN_AGENT")
          : to == from ? "relay: to itself" : "relay: delivered");
    if (!s.bound(to)) {
      Json e = sut.expect_error(from, "UNKNOWN_AGENT", std::nullopt);
      require(e["payload"]["details"].value("agentId", "") == to_id, "UNKNOWN_AGENT must name the agentId: " + e.dump());
      return;
    }
    Json got = sut.next(to, "the notify relayed from " + sut.name(from));
    require(got == m, sut.name(to) + " received " + got.dump() + "\n  instead of the notify sent: " + m.dump());
    sut.quiet(from);
  }
  void show(std::ostream& os) const override { os << "Relay(" << from << " -> " << (to == kGhost ? "ghost" : std::to_string(to)) << ")"; }
};

// A signed notify with to.broadcast: relayed unchanged to every other bound agent; the
// reference handles it too, and a notify is never answered.
struct Broadcast : ApCommand {
  int from = any_slot();
  explicit Broadcast(const ApState& s) { pre(s.connected(from)); }
  void checkPreconditions(const ApState& s) const override { pre(s.connected(from)); }
  void apply(ApState& s) const override { s.agents[from].bound = true; }
  void run(const ApState& s, ApSut& sut) const override {
    const Json m = sut.agent(from).message("notify", {{"broadcast", ++sut.sequence}}, "*", true);
    sut.ws(from).send_text(m.dump());
    cover("broadcast");
    for (const auto& [slot, a] : s.agents) {
      if (slot == from || !s.bound(slot)) continue;
      cover("broadcast: delivered to another agent");
      Json got = sut.next(slot, "the broadcast from " + sut.name(from));
      require(got == m, sut.name(slot) + " received " + got.dump() + "\n  instead of the broadcast: " + m.dump());
    }
    sut.quiet(from);
  }
  void show(std::ostream& os) const override { os << "Broadcast(" << from << ")"; }
};

// Closing the connection: its agent is no longer reachable; its pending answers go nowhere.
struct Disconnect : ApCommand {
  int slot = any_slot();
  explicit Disconnect(const ApState& s) { pre(s.connected(slot)); }
  void checkPreconditions(const ApState& s) const override { pre(s.connected(slot)); }
  void apply(ApState& s) const override { s.agents[slot] = ApAgentModel{}; }
  void run(const ApState& s0, ApSut& sut) const override {
    ApState s = s0;
    apply(s);
    auto& c = sut.ws(slot);
    c.close(1000, "bye");
    for (;;) {  // answers to pending requests may still come before the close
      auto e = next_event(c, kFrameWait);
      require(e.has_value(), sut.name(slot) + ": the connection did not close");
      if (e->kind == ws::Event::Kind::close) break;
      auto j = ApSut::text_json(*e);
      require(j.has_value() && sut.set_aside(slot, *j), sut.name(slot) + ": expected the close, got " + show_event(*e));
    }
    sut.conns.erase(slot);
    sut.pending[slot].clear();
    sut.early[slot].clear();
    const auto expected = static_cast<std::int64_t>(s.bound_count());
    require(eventually([&] { return sut.connected_agents() == expected; }),
            "after " + sut.name(slot) + " closed, the hub counts " + std::to_string(sut.connected_agents()) + " reachable agents, not " +
                std::to_string(expected));
    cover(s0.agents.at(slot).pending.empty() ? "disconnect" : "disconnect with requests pending");
  }
  void show(std::ostream& os) const override { os << "Disconnect(" << slot << ")"; }
};

// ---- the property -----------------------------------------------------------------------------

class ApModelTest : public AgentProtocolFixture {
 protected:
  Target target() { return Target{&runtime, lobby->http_url(), lobby->ws_url()}; }

  void property() {
    ApSut sut(target(), reference_id);
    require(eventually([&] { return sut.connected_agents() == 0; }), "agents of an earlier run are still reachable");
    const ApState initial;
    const auto commands = *rc::state::gen::commands(
        initial, rc::state::gen::execOneOfWithArgs<Connect, Connect, Hello, Request, Request, SlowRequest, AwaitPending, BadSignature,
                                                   Relay, Relay, Relay, Broadcast, Disconnect>());
    rc::state::runAll(commands, initial, sut);
    // Whatever is still pending ends as predicted, and nothing else is left on any connection.
    ApState final_state = initial;
    rc::state::applyAll(commands, final_state);
    for (const auto& [slot, a] : final_state.agents) {
      if (!a.connected) continue;
      if (!a.pending.empty()) await_pending(final_state, sut, slot);
      sut.quiet(slot);
    }
  }
};

constexpr Bounds kBounds{60, 40, true, std::nullopt};

TEST_F(ApModelTest, ReferenceAgentFollowsTheModel) {
  expect_success(check_bounded("agentprotocol model", [this] { property(); }, kBounds));
}

// Honesty: the same property against a hub with one rule broken must fail, where that rule
// shows. The first fault is the proof the project asks for (a tampered request is answered like
// a good one instead of INVALID_SIGNATURE); the others show the model's other checks are not
// vacuous either.
class ApModelFaults : public ApModelTest, public ::testing::WithParamInterface<FaultCase> {};

TEST_P(ApModelFaults, ModelDetectsTheFault) {
  restart({GetParam().fault});
  expect_failure(check_bounded(std::string("agentprotocol model, fault ") + GetParam().fault, [this] { property(); },
                               honesty_bounds(kBounds, 20240603)),
                 GetParam().marker);
}

INSTANTIATE_TEST_SUITE_P(Faults, ApModelFaults,
                         ::testing::Values(FaultCase{"agentprotocol.signature.skip-verify", "INVALID_SIGNATURE"},
                                           FaultCase{"agentprotocol.response.wrong-correlation-id", "-other"},
                                           FaultCase{"agentprotocol.reply.bad-signature", "signature does not verify"}),
                         fault_case_name);

}  // namespace
}  // namespace ac::testing

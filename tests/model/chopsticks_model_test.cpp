// Model-based test of the Chopsticks 1.0.0 controller (RapidCheck rc::state): agents connect
// to /chopsticks/ws and, in random order, say hello with a supported, unsupported or missing
// protocolVersion (or without agentId), send heartbeat hellos, guilds and voice events (add,
// released), try to take over a live agentId, answer RPCs the test starts through the
// reference's POST /chopsticks/request (from the right agent, or first from a wrong one), and
// disconnect. The model: the live agents with their version, guilds, readiness and voice
// sessions, and the RPCs pending on each. After every command the controller's liveAgents
// (GET /chopsticks/agents, restricted to the run's agents) must equal the model.
//
// A good hello, guilds and events get no answer: a WebSocket ping barrier proves the controller
// handled them (it handles a connection's frames in order, before reading the ping) and that it
// sent nothing. RPCs run on a background thread (the HTTP call returns with the agent's resp).
#include <deque>
#include <future>
#include <map>
#include <set>

#include "tests/model/model_support.hpp"
#include "tests/support/lobby_fixture.hpp"

namespace ac::testing {
namespace {

using namespace model;

constexpr int kSlots = 3;   // agents: slot -> "<prefix>-bot<slot>"
constexpr int kGuilds = 3;  // guild ids: "<prefix>-g<n>"

// ---- the model ------------------------------------------------------------------------------

struct ChopAgentModel {
  int guilds = 0;         // bit mask over the guild ids (the last hello's or guilds message's)
  bool ready = true;
  std::set<int> sessions; // guilds with a successful event add not yet released
  int pending = 0;        // RPCs sent to it and not answered
};

struct ChopState {
  std::map<int, ChopAgentModel> live;
  bool is_live(int slot) const { return live.count(slot) != 0; }
};

// ---- the system under test ------------------------------------------------------------------

struct Rpc {
  std::string id;                            // the req id the agent received
  std::future<net::HttpResult> http;         // POST /chopsticks/request
};

struct ChopSut {
  Target target;
  std::string prefix = run_prefix("chop");
  std::map<int, std::shared_ptr<net::WsClient>> conns;
  std::map<int, std::deque<Rpc>> rpcs;
  std::map<int, std::map<int, Json>> sessions;  // the event add frames the model's sessions came from
  int sequence = 0;

  explicit ChopSut(Target t) : target(std::move(t)) {}
  ~ChopSut() {
    for (auto& [slot, c] : conns) c->close(1000, "run over");
    for (auto& [slot, q] : rpcs) {
      for (auto& r : q) {
        if (r.http.valid()) r.http.wait();  // each ends (410) once its agent's close is handled, or at the HTTP timeout
      }
    }
  }
  std::string id(int slot) const { return prefix + "-bot" + std::to_string(slot); }
  std::string guild(int n) const { return prefix + "-g" + std::to_string(n); }
  Json guild_ids(int mask) const {
    Json out = Json::array();
    for (int g = 0; g < kGuilds; ++g) {
      if (mask & (1 << g)) out.push_back(guild(g));
    }
    return out;
  }
  net::WsClient& ws(int slot) {
    require(conns.count(slot) != 0, "the SUT has no connection for " + id(slot));
    return *conns.at(slot);
  }

  Json hello(int slot, int guilds, bool ready, std::optional<std::string> version = "1.0.0", bool with_id = true) const {
    Json h = {{"type", "hello"}, {"botUserId", "1468195142467981395"}, {"tag", "ModelBot#0001"}, {"ready", ready},
              {"guildIds", guild_ids(guilds)}, {"poolId", prefix + "-pool"}};
    if (version) h["protocolVersion"] = *version;
    if (with_id) h["agentId"] = id(slot);
    return h;
  }

  // The controller's view of this run's agents, keyed by agentId.
  std::map<std::string, Json> live_view() {
    std::map<std::string, Json> out;
    const Json view = get_json(target, "/chopsticks/agents");  // kept alive for the loop
    for (const auto& a : view["agents"]) {
      const std::string id = a.value("agentId", "");
      if (id.starts_with(prefix + "-")) out[id] = a;
    }
    return out;
  }
};

// GET /chopsticks/agents must show exactly the model's live agents, each as the model says.
void expect_live_agents(const ChopState& s, ChopSut& sut) {
  auto view = sut.live_view();
  std::set<std::string> expected_ids, got_ids;
  for (const auto& [slot, a] : s.live) expected_ids.insert(sut.id(slot));
  for (const auto& [id, a] : view) got_ids.insert(id);
  require(got_ids == expected_ids, "liveAgents lists " + Json(got_ids).dump() + ", the model " + Json(expected_ids).dump());
  for (const auto& [slot, a] : s.live) {
    const Json& v = view[sut.id(slot)];
    Json sessions = Json::array();
    for (int g : a.sessions) sessions.push_back(sut.sessions[slot].at(g));
    const Json expected = {{"protocolVersion", "1.0.0"}, {"guildIds", sut.guild_ids(a.guilds)}, {"ready", a.ready},
                           {"poolId", sut.prefix + "-pool"}, {"sessions", sessions}};
    const Json got = {{"protocolVersion", v["protocolVersion"]}, {"guildIds", v["guildIds"]}, {"ready", v["ready"]},
                      {"poolId", v["poolId"]}, {"sessions", v["sessions"]}};
    require(got == expected, sut.id(slot) + " is listed as " + got.dump() + "\n  the model predicts " + expected.dump());
  }
}

// The controller's refusal of a hello: an error frame, then close 1008.
void expect_rejected(net::WsClient& c, const std::string& who) {
  Json e = recv_json(c, who, "an error frame, then close 1008");
  require(e["type"] == "error" && e["error"].is_string(), who + ": expected an error frame, got " + e.dump());
  auto closed = recv_close(c, who);
  require(closed.close_code == 1008, who + ": the refused connection must be closed with 1008, got " + show_event(closed));
}

using ChopCommand = rc::state::Command<ChopState, ChopSut>;

int any_slot() { return pick(0, kSlots); }
int any_guilds() { return pick(0, 1 << kGuilds); }

// ---- commands -------------------------------------------------------------------------------

// A new connection's hello. protocolVersion 1.0.0: the agent is live, nothing is answered.
// Unsupported or missing: an error frame and close 1008, no agent.
struct Hello : ChopCommand {
  int slot = any_slot();
  int version = *rc::gen::weightedElement<int>({{4, 0}, {1, 1}, {1, 2}});  // 0: 1.0.0, 1: unsupported, 2: missing
  int guilds = any_guilds();
  explicit Hello(const ChopState& s) { pre(!s.is_live(slot)); }
  void checkPreconditions(const ChopState& s) const override { pre(!s.is_live(slot)); }
  void apply(ChopState& s) const override {
    if (version == 0) s.live[slot] = ChopAgentModel{guilds, true, {}, 0};
  }
  void run(const ChopState& s0, ChopSut& sut) const override {
    static const std::optional<std::string> versions[] = {"1.0.0", "0.9.0", std::nullopt};
    auto c = ws_connect(sut.target, "/chopsticks/ws", sut.id(slot));
    c->send_text(sut.hello(slot, guilds, true, versions[version]).dump());
    cover(version == 0 ? "hello 1.0.0: live" : version == 1 ? "hello 0.9.0: error, close 1008" : "hello without version: error, close 1008");
    if (version != 0) {
      expect_rejected(*c, sut.id(slot) + (version == 1 ? " (protocolVersion 0.9.0)" : " (no protocolVersion)"));
    } else {
      expect_quiet(*c, sut.id(slot));
      sut.conns[slot] = c;
      sut.sessions[slot].clear();
    }
    ChopState s = s0;
    apply(s);
    expect_live_agents(s, sut);
  }
  void show(std::ostream& os) const override {
    static const char* names[] = {"1.0.0", "0.9.0", "no version"};
    os << "Hello(" << slot << ", " << names[version] << ", guilds " << guilds << ")";
  }
};

// A hello without agentId (version fine): ignored, no answer, no agent.
struct HelloWithoutAgentId : ChopCommand {
  void run(const ChopState& s, ChopSut& sut) const override {
    auto c = ws_connect(sut.target, "/chopsticks/ws", "anonymous");
    c->send_text(sut.hello(0, 1, true, "1.0.0", false).dump());
    expect_quiet(*c, "a connection whose hello has no agentId");
    close_and_drain(*c, "anonymous");
    cover("hello without agentId: ignored");
    expect_live_agents(s, sut);
  }
  void show(std::ostream& os) const override { os << "HelloWithoutAgentId"; }
};

// A second hello of a live agent on its own connection: a heartbeat that updates guilds and
// readiness and keeps the voice sessions; no answer.
struct Heartbeat : ChopCommand {
  int slot = any_slot();
  int guilds = any_guilds();
  bool ready = coin();
  explicit Heartbeat(const ChopState& s) { pre(s.is_live(slot)); }
  void checkPreconditions(const ChopState& s) const override { pre(s.is_live(slot)); }
  void apply(ChopState& s) const override {
    s.live[slot].guilds = guilds;
    s.live[slot].ready = ready;
  }
  void run(const ChopState& s0, ChopSut& sut) const override {
    cover("heartbeat hello");
    sut.ws(slot).send_text(sut.hello(slot, guilds, ready).dump());
    expect_quiet(sut.ws(slot), sut.id(slot));
    ChopState s = s0;
    apply(s);
    expect_live_agents(s, sut);
  }
  void show(std::ostream& os) const override { os << "Heartbeat(" << slot << ", guilds " << guilds << (ready ? ", ready" : ", busy") << ")"; }
};

// guilds: replaces the agent's guild list.
struct Guilds : ChopCommand {
  int slot = any_slot();
  int guilds = any_guilds();
  explicit Guilds(const ChopState& s) { pre(s.is_live(slot)); }
  void checkPreconditions(const ChopState& s) const override { pre(s.is_live(slot)); }
  void apply(ChopState& s) const override { s.live[slot].guilds = guilds; }
  void run(const ChopState& s0, ChopSut& sut) const override {
    cover("guilds");
    sut.ws(slot).send_text(Json{{"type", "guilds"}, {"guildIds", sut.guild_ids(guilds)}}.dump());
    expect_quiet(sut.ws(slot), sut.id(slot));
    ChopState s = s0;
    apply(s);
    expect_live_agents(s, sut);
  }
  void show(std::ostream& os) const override { os << "Guilds(" << slot << ", " << guilds << ")"; }
};

// event add (ok: a voice session in that guild; failed: nothing) and event released (the
// session ends, "Controller marks agent as available").
struct VoiceEvent : ChopCommand {
  int slot = any_slot();
  int guild = pick(0, kGuilds);
  int kind = *rc::gen::weightedElement<int>({{2, 0}, {1, 1}, {2, 2}});  // 0: add ok, 1: add failed, 2: released
  explicit VoiceEvent(const ChopState& s) {
    pre(s.is_live(slot));
    // Mostly release a session the agent has (releasing any other guild is legal but dull).
    const auto& sessions = s.live.at(slot).sessions;
    if (kind == 2 && !sessions.empty() && pick(0, 4) != 0) guild = *rc::gen::elementOf(std::vector<int>(sessions.begin(), sessions.end()));
  }
  void checkPreconditions(const ChopState& s) const override { pre(s.is_live(slot)); }
  void apply(ChopState& s) const override {
    if (kind == 0) s.live[slot].sessions.insert(guild);
    if (kind == 2) s.live[slot].sessions.erase(guild);
  }
  void run(const ChopState& s0, ChopSut& sut) const override {
    const std::string voice = "voice-" + std::to_string(++sut.sequence);
    Json e;
    if (kind == 2) {
      e = {{"type", "event"}, {"event", "released"}, {"agentId", sut.id(slot)}, {"guildId", sut.guild(guild)},
           {"voiceChannelId", voice}, {"reason", "USER_LEFT"}, {"kind", "music"}};
    } else {
      e = {{"type", "event"}, {"event", "add"}, {"agentId", sut.id(slot)}, {"guildId", sut.guild(guild)}, {"voiceChannelId", voice},
           {"channelId", voice}, {"kind", "music"}, {"ok", kind == 0}};
      if (kind == 1) e["error"] = "no permission to join";
    }
    sut.ws(slot).send_text(e.dump());
    if (kind == 0) sut.sessions[slot][guild] = e;
    cover(kind == 0 ? "event add" : kind == 1 ? "event add (failed)" : s0.live.at(slot).sessions.count(guild) ? "event released" : "event released (no session)");
    expect_quiet(sut.ws(slot), sut.id(slot));
    ChopState s = s0;
    apply(s);
    expect_live_agents(s, sut);
  }
  void show(std::ostream& os) const override {
    static const char* names[] = {"add", "add failed", "released"};
    os << "VoiceEvent(" << slot << ", guild " << guild << ", " << names[kind] << ")";
  }
};

// Another connection says hello with a live agentId: refused (error, close 1008); the live
// agent is untouched.
struct Takeover : ChopCommand {
  int slot = any_slot();
  explicit Takeover(const ChopState& s) { pre(s.is_live(slot)); }
  void checkPreconditions(const ChopState& s) const override { pre(s.is_live(slot)); }
  void run(const ChopState& s, ChopSut& sut) const override {
    auto c = ws_connect(sut.target, "/chopsticks/ws", "impostor of " + sut.id(slot));
    c->send_text(sut.hello(slot, 0, true).dump());
    expect_rejected(*c, "a second connection claiming live " + sut.id(slot));
    cover("takeover: refused");
    expect_live_agents(s, sut);
  }
  void show(std::ostream& os) const override { os << "Takeover(" << slot << ")"; }
};

// POST /chopsticks/request to a live agent: the agent receives `req` with a UUID id, the op,
// the data and its agentId; the HTTP call stays open until it is answered.
struct Request : ChopCommand {
  int slot = any_slot();
  explicit Request(const ChopState& s) { pre(s.is_live(slot) && s.live.at(slot).pending < 3); }
  void checkPreconditions(const ChopState& s) const override { pre(s.is_live(slot) && s.live.at(slot).pending < 3); }
  void apply(ChopState& s) const override { ++s.live[slot].pending; }
  void run(const ChopState&, ChopSut& sut) const override {
    const Json data = {{"query", "song " + std::to_string(++sut.sequence)}};
    const Json body = {{"agentId", sut.id(slot)}, {"op", "search"}, {"data", data}};
    Target t = sut.target;
    auto http = std::async(std::launch::async, [t, body] {
      net::HttpCall call{"POST", t.http_base + "/chopsticks/request", {{"content-type", "application/json"}}, body.dump()};
      call.timeout = std::chrono::milliseconds(20000);
      auto r = net::http_request(*t.runtime, call);
      return r ? *r : net::HttpResult{0, {}, r.error().describe()};
    });
    Json req = recv_json(sut.ws(slot), sut.id(slot), "the req of POST /chopsticks/request");
    const bool ok = req["type"] == "req" && req["op"] == "search" && req["data"] == data && req["agentId"] == sut.id(slot) &&
                    req["id"].is_string();
    sut.rpcs[slot].push_back(Rpc{ok ? req["id"].get<std::string>() : std::string(), std::move(http)});
    cover("request: req delivered");
    require(ok, sut.id(slot) + ": expected req {op: search, data: " + data.dump() + "}, got " + req.dump());
  }
  void show(std::ostream& os) const override { os << "Request(" << slot << ")"; }
};

// POST /chopsticks/request for an agent that is not live: 404 UNKNOWN_AGENT at once.
struct RequestUnknown : ChopCommand {
  int slot = any_slot();
  explicit RequestUnknown(const ChopState& s) { pre(!s.is_live(slot)); }
  void checkPreconditions(const ChopState& s) const override { pre(!s.is_live(slot)); }
  void run(const ChopState&, ChopSut& sut) const override {
    auto r = http_call(sut.target, "POST", "/chopsticks/request", Json{{"agentId", sut.id(slot)}, {"op", "status"}}.dump());
    require(r.status == 404 && json_body(r, "request")["error"]["code"] == "UNKNOWN_AGENT",
            "a request for " + sut.id(slot) + ", which is not live, answered " + std::to_string(r.status) + " " + r.body);
    cover("request: 404 UNKNOWN_AGENT");
  }
  void show(std::ostream& os) const override { os << "RequestUnknown(" << slot << ")"; }
};

// The agent answers its oldest pending req; optionally another live agent sends a resp with
// the same id first, which must be ignored (only the addressee completes a req). The HTTP call
// returns the addressee's resp.
struct Respond : ChopCommand {
  int slot = any_slot();
  int intruder = any_slot();
  bool intrude = coin();
  explicit Respond(const ChopState& s) { pre(s.is_live(slot) && s.live.at(slot).pending > 0 && (!intrude || (intruder != slot && s.is_live(intruder)))); }
  void checkPreconditions(const ChopState& s) const override {
    pre(s.is_live(slot) && s.live.at(slot).pending > 0 && (!intrude || s.is_live(intruder)));
  }
  void apply(ChopState& s) const override { --s.live[slot].pending; }
  void run(const ChopState&, ChopSut& sut) const override {
    require(!sut.rpcs[slot].empty(), "the SUT lost track of the pending requests");
    Rpc rpc = std::move(sut.rpcs[slot].front());
    sut.rpcs[slot].pop_front();
    if (intrude) {
      sut.ws(intruder).send_text(Json{{"type", "resp"}, {"id", rpc.id}, {"ok", true}, {"data", {{"from", "the wrong agent"}}}}.dump());
      expect_quiet(sut.ws(intruder), sut.id(intruder));
    }
    cover(intrude ? "resp: after a resp from the wrong agent" : "resp: from the addressee");
    const Json resp = {{"type", "resp"}, {"id", rpc.id}, {"ok", true}, {"data", {{"from", sut.id(slot)}}}};
    sut.ws(slot).send_text(resp.dump());
    require(rpc.http.wait_for(std::chrono::seconds(10)) == std::future_status::ready, "POST /chopsticks/request did not return");
    auto r = rpc.http.get();
    auto body = json::parse_strict(r.body);
    require(r.status == 200 && body && *body == resp,
            "POST /chopsticks/request answered " + std::to_string(r.status) + " " + r.body + "\n  instead of the addressee's resp " + resp.dump());
  }
  void show(std::ostream& os) const override {
    os << "Respond(" << slot << (intrude ? ", after a resp from " + std::to_string(intruder) : std::string()) << ")";
  }
};

// Closing the connection removes the agent from liveAgents; its pending RPCs end 410 AGENT_GONE.
struct Disconnect : ChopCommand {
  int slot = any_slot();
  explicit Disconnect(const ChopState& s) { pre(s.is_live(slot)); }
  void checkPreconditions(const ChopState& s) const override { pre(s.is_live(slot)); }
  void apply(ChopState& s) const override { s.live.erase(slot); }
  void run(const ChopState& s0, ChopSut& sut) const override {
    close_and_drain(sut.ws(slot), sut.id(slot));
    sut.conns.erase(slot);
    for (auto& rpc : sut.rpcs[slot]) {
      require(rpc.http.wait_for(std::chrono::seconds(10)) == std::future_status::ready, "a pending POST /chopsticks/request did not end");
      auto r = rpc.http.get();
      cover("disconnect: pending request ends 410");
      require(r.status == 410, "a request pending on " + sut.id(slot) + " when it left answered " + std::to_string(r.status) + " " + r.body);
    }
    sut.rpcs[slot].clear();
    ChopState s = s0;
    apply(s);
    // The controller handles the close a moment after the client saw it.
    eventually([&] { return sut.live_view().count(sut.id(slot)) == 0; });
    cover("disconnect");
    expect_live_agents(s, sut);
  }
  void show(std::ostream& os) const override { os << "Disconnect(" << slot << ")"; }
};

// ---- the property -----------------------------------------------------------------------------

class ChopsticksModelTest : public LobbyFixture {
 protected:
  // RPCs stay pending across commands: no controller timeout within a run.
  void configure(ref::LobbyConfig& c) override { c.protocols["chopsticks"]["request_timeout_ms"] = 120000; }
  Target target() { return Target{&runtime, lobby->http_url(), lobby->ws_url()}; }

  void property() {
    ChopSut sut(target());
    const ChopState initial;
    const auto commands = *rc::state::gen::commands(
        initial, rc::state::gen::execOneOfWithArgs<Hello, Hello, Hello, HelloWithoutAgentId, Heartbeat, Guilds, VoiceEvent, VoiceEvent,
                                                   VoiceEvent, Takeover, Request, Request, RequestUnknown, Respond, Respond, Respond,
                                                   Disconnect>());
    rc::state::runAll(commands, initial, sut);
    for (const auto& [slot, c] : sut.conns) expect_quiet(*c, sut.id(slot));
  }
};

constexpr Bounds kBounds{60, 40, true, std::nullopt};

TEST_F(ChopsticksModelTest, ControllerFollowsTheModel) {
  expect_success(check_bounded("chopsticks model", [this] { property(); }, kBounds));
}

// Honesty: the same property against a controller with one rule broken must fail, where that
// rule shows. The first fault is the proof the project asks for (a hello with protocolVersion
// 0.9.0 is accepted: no error, no close, a live agent); the others show the model's other checks
// are not vacuous either.
class ChopsticksModelFaults : public ChopsticksModelTest, public ::testing::WithParamInterface<FaultCase> {};

TEST_P(ChopsticksModelFaults, ModelDetectsTheFault) {
  start({GetParam().fault});
  expect_failure(check_bounded(std::string("chopsticks model, fault ") + GetParam().fault, [this] { property(); },
                               honesty_bounds(kBounds, 20240605)),
                 GetParam().marker);
}

INSTANTIATE_TEST_SUITE_P(Faults, ChopsticksModelFaults,
                         ::testing::Values(FaultCase{"chopsticks.version.accept-any", "0.9.0"},
                                           FaultCase{"chopsticks.version.wrong-close-code", "closed with 1008"},
                                           FaultCase{"chopsticks.rpc.accept-resp-from-anyone", "instead of the addressee's resp"}),
                         fault_case_name);

}  // namespace
}  // namespace ac::testing

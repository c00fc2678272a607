// Model-based test of the Agora relay (RapidCheck rc::state): random sequences of agents
// connecting (and trying to take a live id), one-shot send/reply frames, interleaved streams
// (start, chunks, end, a chunk to an unknown or ended stream, a reused stream_id), invalid
// frames and disconnections, played against the reference lobby over real WebSockets. The model
// is reference/agora/README.md's reading of the spec: who is bound, which streams each sender
// connection has open or ended, and to which connection of the recipient a stream goes.
//
// The relay acknowledges nothing it forwards, so "the sender got no error" is checked with a
// WebSocket ping: the relay handles a connection's frames in order, and its pong comes after
// anything it queued for the frames before.
#include <map>
#include <set>

#include "harness/protocols/profile.hpp"
#include "tests/model/model_support.hpp"
#include "tests/ref_agora/agora_fixture.hpp"

namespace ac::testing {
namespace {

using namespace model;

constexpr int kSlots = 3;    // agents: slot -> "<prefix>-a<slot>"
constexpr int kStreamIds = 2;  // stream ids per sender connection: "s0", "s1"

// ---- the model ------------------------------------------------------------------------------

struct StreamModel {
  int to = 0;
  int to_epoch = 0;  // the recipient's connection the stream started with
  bool ended = false;
};

struct AgoraState {
  std::set<int> connected;
  std::map<int, int> epoch;                          // slot -> how many times it connected
  std::map<std::pair<int, int>, StreamModel> streams;  // (sender, stream id) of the sender's current connection

  bool live(int slot) const { return connected.count(slot) != 0; }
  // A stream's recipient is reachable while the connection it started with is.
  bool reachable(const StreamModel& st) const { return live(st.to) && epoch.at(st.to) == st.to_epoch; }
  const StreamModel* stream(int from, int sid) const {
    auto it = streams.find({from, sid});
    return it == streams.end() ? nullptr : &it->second;
  }
};

// ---- the system under test ------------------------------------------------------------------

struct AgoraSut {
  Target target;
  std::string prefix = run_prefix("agora");
  std::map<int, std::shared_ptr<net::WsClient>> conns;
  int sequence = 0;

  explicit AgoraSut(Target t) : target(std::move(t)) {}
  ~AgoraSut() {
    for (auto& [slot, c] : conns) c->close(1000, "run over");
  }
  std::string id(int slot) const { return prefix + "-a" + std::to_string(slot); }
  static std::string sid(int s) { return "s" + std::to_string(s); }
  net::WsClient& ws(int slot) {
    require(conns.count(slot) != 0, "the SUT has no connection for " + id(slot));
    return *conns.at(slot);
  }
  void send(int slot, const Json& frame) { ws(slot).send_text(frame.dump()); }
  std::int64_t agents_online() { return get_json(target, "/healthz")["protocols"]["agora"]["agents_online"].get<std::int64_t>(); }
};

// The next frame for `slot`, which must be schema-valid (schemas/agora).
Json from_relay(AgoraSut& sut, int slot, const std::string& expected) {
  Json j = recv_json(sut.ws(slot), sut.id(slot), expected);
  auto valid = proto::Catalog::builtin().profile(proto::ProtocolId::agora).check(j);
  require(valid.has_value(), sut.id(slot) + ": the relay sent a frame that violates schemas/agora (" +
                                 (valid ? std::string() : valid.error().describe()) + "): " + j.dump());
  return j;
}

// The next frame for `slot` must be `expected` exactly.
void expect_frame(AgoraSut& sut, int slot, const Json& expected) {
  Json got = from_relay(sut, slot, expected.value("type", "") + " " + expected.dump());
  require(got == expected, sut.id(slot) + " received " + got.dump() + "\n  the model predicts " + expected.dump());
}

// The next frame for `slot` must be the relay error `code` (with `stream_id` when it is about one).
void expect_error(AgoraSut& sut, int slot, const std::string& code, const std::optional<std::string>& stream_id) {
  Json e = from_relay(sut, slot, "error " + code);
  require(e["type"] == "error" && e["code"] == code, sut.id(slot) + ": expected error " + code + ", got " + e.dump());
  if (stream_id) {
    require(e.value("stream_id", "") == *stream_id, sut.id(slot) + ": error " + code + " must name stream " + *stream_id + ": " + e.dump());
  } else {
    require(!e.contains("stream_id"), sut.id(slot) + ": error " + code + " is about no stream: " + e.dump());
  }
}

using AgoraCommand = rc::state::Command<AgoraState, AgoraSut>;

int any_slot() { return pick(0, kSlots); }
int any_stream() { return pick(0, kStreamIds); }

// ---- commands -------------------------------------------------------------------------------

// Connect with ?agent_id=: bound at the upgrade, nothing is sent on success.
struct Connect : AgoraCommand {
  int slot = any_slot();
  explicit Connect(const AgoraState& s) { pre(!s.live(slot)); }
  void checkPreconditions(const AgoraState& s) const override { pre(!s.live(slot)); }
  void apply(AgoraState& s) const override {
    s.connected.insert(slot);
    ++s.epoch[slot];
  }
  void run(const AgoraState& s, AgoraSut& sut) const override {
    sut.conns[slot] = ws_connect(sut.target, "/agora/ws?agent_id=" + url_encode(sut.id(slot)), sut.id(slot));
    expect_quiet(*sut.conns[slot], sut.id(slot));
    cover(s.epoch.count(slot) ? "connect: again after a disconnect" : "connect: first time");
  }
  void show(std::ostream& os) const override { os << "Connect(" << slot << ")"; }
};

// A second connection for a live id: AGENT_ID_TAKEN, then close 1008; the first keeps the id.
struct ConnectTaken : AgoraCommand {
  int slot = any_slot();
  explicit ConnectTaken(const AgoraState& s) { pre(s.live(slot)); }
  void checkPreconditions(const AgoraState& s) const override { pre(s.live(slot)); }
  void run(const AgoraState&, AgoraSut& sut) const override {
    auto second = ws_connect(sut.target, "/agora/ws?agent_id=" + url_encode(sut.id(slot)), "second " + sut.id(slot));
    Json e = recv_json(*second, "second " + sut.id(slot), "error AGENT_ID_TAKEN");
    require(e["type"] == "error" && e["code"] == "AGENT_ID_TAKEN", "a second connection for live " + sut.id(slot) + " got " + e.dump());
    auto closed = recv_close(*second, "second " + sut.id(slot));
    cover("second connection: AGENT_ID_TAKEN, close 1008");
    require(closed.close_code == 1008, "the refused connection must be closed with 1008, got " + show_event(closed));
  }
  void show(std::ostream& os) const override { os << "ConnectTaken(" << slot << ")"; }
};

// A one-shot send (or reply): delivered to the bound connection as message (or reply), `from`
// the sender's registered id whatever the frame claims, unknown members kept; the sender gets
// nothing. UNKNOWN_RECIPIENT (no stream_id) when `to` is not connected.
struct OneShot : AgoraCommand {
  int from = any_slot();
  int to = any_slot();
  bool reply = coin();
  bool claims_from = coin();  // writes a `from` of its own (never believed)
  explicit OneShot(const AgoraState& s) { pre(s.live(from)); }
  void checkPreconditions(const AgoraState& s) const override { pre(s.live(from)); }
  void run(const AgoraState& s, AgoraSut& sut) const override {
    Json frame = {{"type", reply ? "reply" : "send"}, {"to", sut.id(to)}, {"payload", {{"n", ++sut.sequence}}}, {"x_trace", "kept"}};
    if (claims_from) frame["from"] = sut.id(to) + "-impostor";
    sut.send(from, frame);
    cover(std::string(reply ? "reply" : "send") + (s.live(to) ? ": delivered" : ": UNKNOWN_RECIPIENT"));
    if (!s.live(to)) return expect_error(sut, from, "UNKNOWN_RECIPIENT", std::nullopt);
    Json expected = frame;
    expected["from"] = sut.id(from);
    if (!reply) {
      expected["type"] = "message";
      expected.erase("to");
    }
    expect_frame(sut, to, expected);
    expect_quiet(sut.ws(from), sut.id(from));
  }
  void show(std::ostream& os) const override {
    os << "OneShot(" << (reply ? "reply " : "send ") << from << " -> " << to << (claims_from ? ", claims a from" : "") << ")";
  }
};

// send with stream: true. Forwarded at once and opens the stream; STREAM_ID_IN_USE while the
// sender has that id open; UNKNOWN_RECIPIENT (opening nothing) when `to` is not connected.
struct StartStream : AgoraCommand {
  int from = any_slot();
  int to = any_slot();
  int sid = any_stream();
  explicit StartStream(const AgoraState& s) { pre(s.live(from)); }
  void checkPreconditions(const AgoraState& s) const override { pre(s.live(from)); }
  bool opens(const AgoraState& s) const {
    const StreamModel* st = s.stream(from, sid);
    return (st == nullptr || st->ended) && s.live(to);
  }
  void apply(AgoraState& s) const override {
    if (opens(s)) s.streams[{from, sid}] = StreamModel{to, s.epoch.at(to), false};
  }
  void run(const AgoraState& s, AgoraSut& sut) const override {
    const std::string id = AgoraSut::sid(sid);
    Json frame = {{"type", "send"}, {"to", sut.id(to)}, {"stream_id", id}, {"stream", true}, {"payload", {{"n", ++sut.sequence}}}};
    sut.send(from, frame);
    const StreamModel* st = s.stream(from, sid);
    cover(st != nullptr && !st->ended ? "stream start: STREAM_ID_IN_USE"
          : !s.live(to)               ? "stream start: UNKNOWN_RECIPIENT"
          : st != nullptr             ? "stream start: reuses an ended id"
                                      : "stream start: delivered");
    if (st != nullptr && !st->ended) return expect_error(sut, from, "STREAM_ID_IN_USE", id);
    if (!s.live(to)) return expect_error(sut, from, "UNKNOWN_RECIPIENT", id);
    expect_frame(sut, to, {{"type", "message"}, {"from", sut.id(from)}, {"stream_id", id}, {"stream", true}, {"payload", frame["payload"]}});
    expect_quiet(sut.ws(from), sut.id(from));
  }
  void show(std::ostream& os) const override { os << "StartStream(" << from << " -> " << to << ", s" << sid << ")"; }
};

// send_chunk / send_end of stream `sid`, addressed like its start. Forwarded at once and in
// order while the stream is open and its recipient connection lives; UNKNOWN_STREAM if the
// sender never started it, STREAM_ENDED after its end, UNKNOWN_RECIPIENT if the recipient
// left (an end frame still ends the stream).
struct StreamFrame : AgoraCommand {
  int from = any_slot();
  int sid = any_stream();
  bool end = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
  bool empty = *rc::gen::weightedElement<bool>({{4, false}, {1, true}});  // AG-4: an empty chunk is a chunk
  int to_if_unknown = any_slot();
  explicit StreamFrame(const AgoraState& s) {
    pre(s.live(from));
    // Mostly a stream the sender has (a stream id it never used is one case among several).
    std::vector<int> known;
    for (const auto& [key, st] : s.streams) {
      if (key.first == from) known.push_back(key.second);
    }
    if (!known.empty() && pick(0, 4) != 0) sid = *rc::gen::elementOf(known);
  }
  void checkPreconditions(const AgoraState& s) const override { pre(s.live(from)); }
  void apply(AgoraState& s) const override {
    auto it = s.streams.find({from, sid});
    if (end && it != s.streams.end()) it->second.ended = true;
  }
  void run(const AgoraState& s, AgoraSut& sut) const override {
    const std::string id = AgoraSut::sid(sid);
    const StreamModel* st = s.stream(from, sid);
    const int to = st != nullptr ? st->to : to_if_unknown;
    const std::string text = empty ? "" : "chunk-" + std::to_string(++sut.sequence);
    Json frame = {{"type", end ? "send_end" : "send_chunk"}, {"to", sut.id(to)}, {"stream_id", id}};
    if (!end) frame["chunk"] = text;
    sut.send(from, frame);
    const std::string what = end ? "stream end: " : empty ? "empty chunk: " : "chunk: ";
    cover(what + (st == nullptr ? "UNKNOWN_STREAM" : st->ended ? "STREAM_ENDED" : !s.reachable(*st) ? "UNKNOWN_RECIPIENT" : "delivered"));
    if (st == nullptr) return expect_error(sut, from, "UNKNOWN_STREAM", id);
    if (st->ended) return expect_error(sut, from, "STREAM_ENDED", id);
    if (!s.reachable(*st)) return expect_error(sut, from, "UNKNOWN_RECIPIENT", id);
    Json expected = {{"type", end ? "message_end" : "message_chunk"}, {"from", sut.id(from)}, {"stream_id", id}};
    if (!end) expected["chunk"] = text;
    expect_frame(sut, to, expected);
    expect_quiet(sut.ws(from), sut.id(from));
  }
  void show(std::ostream& os) const override {
    os << (end ? "EndStream(" : "Chunk(") << from << ", s" << sid << (!end && empty ? ", empty" : "") << ")";
  }
};

// A frame that is not JSON: INVALID_FRAME, and the connection stays usable (later commands use it).
struct InvalidFrame : AgoraCommand {
  int slot = any_slot();
  explicit InvalidFrame(const AgoraState& s) { pre(s.live(slot)); }
  void checkPreconditions(const AgoraState& s) const override { pre(s.live(slot)); }
  void run(const AgoraState&, AgoraSut& sut) const override {
    sut.ws(slot).send_text("{\"type\": \"send\", ");
    expect_error(sut, slot, "INVALID_FRAME", std::nullopt);
    cover("invalid frame: INVALID_FRAME");
  }
  void show(std::ostream& os) const override { os << "InvalidFrame(" << slot << ")"; }
};

// Closing the connection unbinds the id (UNKNOWN_RECIPIENT afterwards; it may connect again)
// and ends its open streams without telling anyone.
struct Disconnect : AgoraCommand {
  int slot = any_slot();
  explicit Disconnect(const AgoraState& s) { pre(s.live(slot)); }
  void checkPreconditions(const AgoraState& s) const override { pre(s.live(slot)); }
  void apply(AgoraState& s) const override {
    s.connected.erase(slot);
    for (auto it = s.streams.begin(); it != s.streams.end();) it = it->first.first == slot ? s.streams.erase(it) : std::next(it);
  }
  void run(const AgoraState& s, AgoraSut& sut) const override {
    close_and_drain(sut.ws(slot), sut.id(slot));
    sut.conns.erase(slot);
    // The relay sees the close a moment after the client: wait until it counts one agent less.
    const auto expected = static_cast<std::int64_t>(s.connected.size()) - 1;
    require(eventually([&] { return sut.agents_online() == expected; }),
            "after " + sut.id(slot) + " closed, the relay counts " + std::to_string(sut.agents_online()) + " agents online, not " +
                std::to_string(expected));
    cover("disconnect: unbound");
  }
  void show(std::ostream& os) const override { os << "Disconnect(" << slot << ")"; }
};

// ---- the property -----------------------------------------------------------------------------

class AgoraModelTest : public AgoraTest {
 protected:
  Target target() { return Target{&runtime, lobby->http_url(), lobby->ws_url()}; }

  void property() {
    AgoraSut sut(target());
    // The previous run's connections are closed; the relay must have unbound them, so that the
    // agents_online count is this run's alone.
    require(eventually([&] { return sut.agents_online() == 0; }), "agents of an earlier run are still bound");
    const AgoraState initial;
    const auto commands = *rc::state::gen::commands(
        initial, rc::state::gen::execOneOfWithArgs<Connect, Connect, ConnectTaken, OneShot, StartStream, StartStream,
                                                   StreamFrame, StreamFrame, StreamFrame, StreamFrame, InvalidFrame, Disconnect>());
    rc::state::runAll(commands, initial, sut);
    for (const auto& [slot, c] : sut.conns) expect_quiet(*c, sut.id(slot));
  }
};

constexpr Bounds kBounds{60, 40, true, std::nullopt};

TEST_F(AgoraModelTest, RelayFollowsTheModel) {
  expect_success(check_bounded("agora model", [this] { property(); }, kBounds));
}

// Honesty: the same property against a relay with one rule broken must fail, where that rule
// shows. The first fault is the proof the project asks for (chunks swapped pairwise: the first
// one is held back, so the chunk the model expects at once does not come); the others show the
// model's other checks are not vacuous either.
class AgoraModelFaults : public AgoraModelTest, public ::testing::WithParamInterface<FaultCase> {};

TEST_P(AgoraModelFaults, ModelDetectsTheFault) {
  start({GetParam().fault});
  expect_failure(check_bounded(std::string("agora model, fault ") + GetParam().fault, [this] { property(); }, honesty_bounds(kBounds, 20240602)),
                 GetParam().marker);
}

INSTANTIATE_TEST_SUITE_P(Faults, AgoraModelFaults,
                         ::testing::Values(FaultCase{"agora.chunks.reorder", "message_chunk"},
                                           FaultCase{"agora.from.trust-client", "-impostor"},
                                           FaultCase{"agora.reply.as-message", "\"type\":\"reply\""}),
                         fault_case_name);

}  // namespace
}  // namespace ac::testing

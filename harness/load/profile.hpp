// What `agentconform load` needs from a protocol: how its agents are set up (registration,
// tokens, keys, handshakes: as target.json settings say, the same settings `run` reads), how a
// message travels its relay path, and how the receiver recognises what arrived. One profile per
// protocol in harness/load/profiles/; the engine (engine.hpp) knows no protocol.
//
// Every load message carries a marker in a text member the relay must forward unchanged:
//   acl~RRRRRRRR~LLLLLLSSSSSSSSSSSSTTTTTTTTTTTTTTTT~xxxx...
// R the run id, L the lane, S the sequence number, T the intended send time (ns since the run's
// epoch), all fixed-width hex, then padding up to --message-size. The receiver finds the marker
// without parsing the frame; profiles check whole frames only for a sample (check()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/engine/target.hpp"
#include "harness/net/client.hpp"
#include "harness/protocols/protocol_id.hpp"
#include "harness/util/expected.hpp"

namespace ac::load {

// An ordered flow of messages: the sender numbers them, the receiver's ledger checks them.
struct Lane {
  std::uint32_t index = 0;
  std::uint32_t from = 0;    // the sending agent (Chopsticks: the agent whose HTTP client sends)
  std::uint32_t to = 0;      // the receiving agent
  std::uint32_t stream = 0;  // 0 .. streams-1 (Agora stream, A2ACP collaboration, HTTP connection)
};

// Who talks to whom. Agents [0, senders) send to agents [senders, 2*senders) pairwise (agent i to
// agent i + senders), `streams` lanes per pair; Chopsticks: every agent is answered by its own
// `streams` HTTP lanes (the controller's requests travel to the agent and back).
struct Topology {
  std::size_t agents = 0;
  std::size_t streams = 1;
  std::vector<Lane> lanes;
  bool http_lanes = false;
};

// Frames a profile sends on an agent's connection (handshake steps, answers).
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void send(std::size_t agent, std::string text) = 0;
};

// What a frame without a data marker was.
struct Seen {
  enum class Kind { control, reply, error, unexpected };
  Kind kind = Kind::control;
  std::string code;  // error: the protocol's error code; unexpected: a short description
};

struct Endpoint {
  std::string url;  // ws[s]://... for agents; http[s]://... for HTTP lanes
  net::Headers headers;
};

// The fixed-width marker (see the header comment).
inline constexpr std::string_view kMarkerTag = "acl~";
inline constexpr std::size_t kMarkerBytes = 4 + 8 + 1 + 6 + 12 + 16 + 1;  // 48
// Answers that carry a marker back (A2ACP responses, Chopsticks resp) start with this tag instead.
inline constexpr std::string_view kReplyTag = "acr~";

struct ProfileSettings {
  engine::TargetConfig target;
  Topology topology;
  std::string run_id;  // 8 hex digits
  std::size_t message_size = 256;
};

class Profile {
 public:
  virtual ~Profile() = default;

  // Agent i's id on the wire (for reports).
  virtual std::string agent_name(std::size_t agent) const = 0;
  // Blocking set-up before any connection: registrations, tokens, keys. An error is a setup
  // failure (exit 3 when the target does not answer, 2 when a setting is missing).
  virtual Expected<bool, std::string> prepare(net::Runtime& runtime) = 0;
  virtual Endpoint endpoint(std::size_t agent) const = 0;
  // Agent i's connection is open: what it sends first.
  virtual void on_open(std::size_t agent, Sink& sink) = 0;
  // A text frame for agent i that carries no data marker: a handshake step, an answer, an
  // error. Called on the agent's I/O thread; may answer through the sink.
  virtual Seen on_frame(std::size_t agent, std::string_view frame, Sink& sink) = 0;
  // nullopt when every agent is ready for traffic, otherwise what is still awaited.
  virtual std::optional<std::string> waiting() const = 0;
  // Called every few milliseconds while the run waits for readiness (retries of handshakes the
  // target asked to retry).
  virtual void tick(Sink& sink) { (void)sink; }
  // Blocking step once every connection is ready (Chopsticks: until the controller routes to
  // every agent). Runs while the I/O threads serve the connections.
  virtual Expected<bool, std::string> settle(net::Runtime& runtime) {
    (void)runtime;
    return true;
  }
  // Every agent is ready and traffic is about to start: the last moment to freeze what encode()
  // reads (overhead() is asked after this).
  virtual void begin_traffic() {}
  // The hot path: appends message `seq` of `lane`, carrying `marker`, to `out` (the frame text,
  // or the HTTP body). marker.size() == kMarkerBytes + padding, so that the message is
  // overhead(lane) + marker.size() bytes.
  virtual void encode(const Lane& lane, std::uint64_t seq, std::string_view marker, std::string& out) = 0;
  // The bytes of a lane's message around its marker (the smallest --message-size is this plus
  // kMarkerBytes).
  virtual std::size_t overhead(const Lane& lane) const = 0;
  // A data message (`lane`, `seq`) reached `agent`: the answer it owes, if the protocol wants one.
  virtual void answer(std::size_t agent, const Lane& lane, std::uint64_t seq, std::string_view frame, Sink& sink) {
    (void)agent, (void)lane, (void)seq, (void)frame, (void)sink;
  }
  // The full check of a delivered message (done for a sample): "" when it is what the lane's
  // sender sent, as the protocol says the relay forwards it; otherwise what is wrong.
  virtual std::string check(std::size_t agent, const Lane& lane, std::string_view frame, std::string_view marker) = 0;
  // The run is over: what ends what on_open started (Agora: send_end per stream).
  virtual void on_finish(std::size_t agent, Sink& sink) {
    (void)agent, (void)sink;
  }

  // HTTP lanes (Chopsticks): each lane is a keep-alive HTTP connection sending one request at a
  // time; encode() gives the body, on_response() judges the answer.
  virtual Endpoint http_endpoint() const { return {}; }
  virtual Seen on_response(const Lane& lane, int status, std::string_view body) {
    (void)lane, (void)status, (void)body;
    return {};
  }
};

Expected<std::unique_ptr<Profile>, std::string> make_profile(proto::ProtocolId protocol, ProfileSettings settings);

// Helpers for the profiles.
std::string json_string(std::string_view s);  // s as a JSON string literal (quoted, escaped)

}  // namespace ac::load

// The Agora relay (agora-relay-streaming.md): binds "agent id <-> current WebSocket connection"
// at registration (reading AG-1: the `?agent_id=` query parameter by default, bound while the
// upgrade is accepted so a frame sent right after the handshake already finds the agent),
// refuses a second connection for a live id (AGENT_ID_TAKEN, then close 1008), forwards
// send/send_chunk/send_end as message/message_chunk/message_end with `from` taken from the
// sender's binding (never from the frame), delivers reply/reply_chunk/reply_end to `to` with
// `from` added (AG-5), and answers what it cannot forward with the error frame of AG-6.
//
// Concurrency: one mutex over the registry and every connection's state. Frames of one sender
// arrive in order (one read loop per connection) and are handed to the recipient's Peer under
// the mutex, whose queue keeps that order: so chunks of a stream stay in order, and streams
// interleave freely. Bounded state: open streams per agent and in all, remembered ended streams,
// frames queued for a connection that is not open yet (README.md says what happens at each cap).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/json/strict_reader.hpp"
#include "harness/net/types.hpp"
#include "harness/protocols/agora/messages.hpp"
#include "reference/agora/settings.hpp"
#include "reference/agora/streams.hpp"
#include "reference/core/hub.hpp"

namespace ac::ref::agora {

using Json = nlohmann::json;

// One WebSocket connection: the Peer's attachment, created when the upgrade is accepted.
// Every member is guarded by the relay's mutex.
struct Conn {
  explicit Conn(std::size_t ended_capacity) : streams(ended_capacity) {}
  std::string agent_id;        // the id this connection registered ("" before a first-frame registration)
  bool registered = false;     // may send; the registry maps agent_id here unless a fault let it be taken over
  std::string refusal;         // non-empty: registration refused (AGENT_ID_TAKEN); closed at open
  std::shared_ptr<net::Peer> peer;  // from open to close (then reset: the Peer owns the Conn)
  bool opened = false;
  bool closed = false;
  std::vector<std::string> early;  // frames for it that arrived between the upgrade and the open
  bool early_overflow = false;
  StreamTable streams;             // streams this connection sends
  std::string from_json;           // agent_id as a JSON string (the fast path's `from`)
  // Load-only faults: chunks this connection sent, and its chunk rate over the last second.
  std::uint64_t chunks_sent = 0;
  std::chrono::system_clock::time_point rate_window_start{};
  std::uint32_t rate_window_chunks = 0, rate_previous_chunks = 0;
};

class Relay final : public net::WsHandler {
 public:
  Relay(HubContext& context, Settings settings);

  net::UpgradeDecision on_upgrade(const net::HttpRequest& request) override;
  void on_open(const std::shared_ptr<net::Peer>& peer) override;
  void on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool binary) override;
  void on_close(const std::shared_ptr<net::Peer>& peer, const net::CloseInfo& info) override;
  std::size_t max_message_bytes() const override { return settings_.max_frame_bytes; }

  Json status() const;  // {"agents_online", "open_streams", "fast_path_chunks"}

 private:
  using ConnPtr = std::shared_ptr<Conn>;
  using Message = proto::agora::Message;

  // An id a connection may register with; "" when acceptable, otherwise why not.
  std::string id_problem(const std::string& id) const;
  // Binds `id` to `conn` or marks it refused (AGENT_ID_TAKEN). Requires mutex_.
  bool register_id(const ConnPtr& conn, const std::string& id);
  void handle_register(const ConnPtr& conn, std::string_view frame);  // first-frame binding

  // Routing, all with mutex_ held.
  void route(Conn& sender, const Message& msg);
  void start_or_oneshot(Conn& sender, const Message& msg, Family family);
  void chunk_or_end(Conn& sender, const Message& msg, Family family, bool end);
  void forward_without_stream(Conn& sender, const Message& msg, const std::string& to);  // fault paths
  std::string forwarded(const Conn& sender, const Message& msg) const;
  ConnPtr lookup(const std::string& agent_id) const;
  bool reachable(const Conn& c) const;
  void deliver(Conn& to, std::string frame);
  void deliver_routed(Conn& sender, Conn& to, std::string frame);
  void send_error(Conn& to, const std::string& code, const std::string& text, std::optional<std::string> stream_id);
  void unknown_recipient(Conn& sender, const std::string& to, const std::optional<std::string>& stream_id);
  void invalid_frame(Conn& sender, const std::string& text);
  // The send_chunk fast path (README "The send_chunk fast path"): relays `forwarded` (the frame
  // the codec path would write) and returns true, or returns false and leaves the frame to the
  // codec path. Requires mutex_.
  bool fast_chunk(Conn& sender, std::string_view to, std::string_view stream_id, std::string& forwarded);
  // Load-only faults: true when the fault consumed the chunk (dropped, held, sent elsewhere).
  bool load_fault(Conn& sender, Conn& target, OpenStream& stream, std::string& frame);
  bool busy(Conn& sender);  // relays 500 or more chunks a second

  HubContext& context_;
  Settings settings_;
  json::ReadLimits limits_;
  bool fast_path_ = false;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::weak_ptr<Conn>> registry_;  // agent id -> its connection
  std::size_t sweep_at_ = 1024;       // registry size that triggers dropping expired entries
  std::size_t open_streams_ = 0;      // over every connection
  std::uint64_t fast_chunks_ = 0;     // chunks relayed by the fast path
  std::vector<ConnPtr> zombies_;      // agora.binding.keep-after-disconnect only
};

}  // namespace ac::ref::agora

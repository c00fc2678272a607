// The ALP 0.2.0 lobby (alp-0.2.0.md): one object holding the registry, the live WebSocket
// sessions and the pending invocations under one mutex, serving GET /ws/connect as a
// net::WsHandler and backing the HTTP endpoints (register, agents, admin broadcast).
//
// The implementation is split by concern:
//   session.cpp     upgrade (token checks), open/close, the frame pipeline (rate limit, JSON,
//                   protocol_version, schema, sender_id) and dispatch by message_type; the
//                   lobby-directed messages (REGISTER_CLIENT, UNREGISTER_CLIENT, PING)
//   routing.cpp     agent-to-agent delivery (DIRECT_MESSAGE, custom types, PING/PONG between
//                   agents), receiver resolution, PROTOCOL_ERROR construction
//   discovery.cpp   DISCOVER_CAPABILITIES matching (pure) — core side in session.cpp
//   invocation.cpp  INVOKE_CAPABILITY_REQUEST / RESPONSE, the pending table and its timeouts
//   broadcast.cpp   LOBBY_BROADCAST and its admin endpoint
//   register_endpoint.cpp  POST /api/v1/register and GET /api/v1/agents
//
// Locking: handlers decode outside the lock, take it for lookups and state changes, and queue
// what they send in an Outbox that is flushed after the lock is released. Frames one connection
// sends are handled in order (the server reads a connection sequentially), and the Outbox keeps
// the order of everything one handler sends, so a responder's in_progress / final sequence
// reaches the requester in the order it was sent.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/net/types.hpp"
#include "harness/protocols/alp/builders.hpp"
#include "harness/protocols/alp/codec.hpp"
#include "reference/alp/registry.hpp"
#include "reference/alp/settings.hpp"
#include "reference/core/hub.hpp"

namespace ac::ref::alp {

using Json = nlohmann::json;
namespace wire = proto::alp;

// Frames and closes decided under the lock, sent after it is released.
class Outbox {
 public:
  void send(const std::shared_ptr<net::Peer>& peer, std::string text);
  void close(const std::shared_ptr<net::Peer>& peer, std::uint16_t code, std::string reason);
  void flush();
  ~Outbox() { flush(); }

 private:
  std::vector<std::pair<std::shared_ptr<net::Peer>, std::string>> frames_;
  struct Close {
    std::shared_ptr<net::Peer> peer;
    std::uint16_t code;
    std::string reason;
  };
  std::vector<Close> closes_;
};

// One WebSocket session (§7.1.2 "unique ID for this specific WebSocket session").
struct Session {
  std::shared_ptr<net::Peer> peer;
  std::string agent_id;
  std::string session_id;
  TimePoint token_expires{};
  bool check_expiry = true;
  bool unregistered = false;
  bool ended = false;  // expired or superseded: the lobby is closing it and handles nothing more
  net::Scheduler::TimerId expiry_timer = 0;
  net::Scheduler::TimerId unregister_timer = 0;
};

// An INVOKE_CAPABILITY_REQUEST routed to `responder`, awaiting its final response.
struct Pending {
  std::string request_id;
  std::string requester;
  std::string responder;
  std::optional<std::string> conversation_id;
  std::string capability_name;
  net::Scheduler::TimerId timer = 0;
  std::uint64_t generation = 0;  // a timer that fired while being re-armed must not time out the new wait
};

// The upgrade's verdict, attached to the peer for on_open.
struct Ticket {
  std::string agent_id;
  TimePoint token_expires{};
  bool check_expiry = true;
};

// An error the lobby reports (§7.5.1 PROTOCOL_ERROR payload, §8.2 Error object).
struct ErrorReport {
  std::string code;
  std::string message;
  std::optional<Json> details;
  std::optional<bool> retryable;
  std::optional<std::string> offending_message_id;
  std::optional<std::string> conversation_id;
};

class Core final : public net::WsHandler, public std::enable_shared_from_this<Core> {
 public:
  Core(HubContext& context, Settings settings);

  // net::WsHandler (session.cpp)
  net::UpgradeDecision on_upgrade(const net::HttpRequest& request) override;
  void on_open(const std::shared_ptr<net::Peer>& peer) override;
  void on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool binary) override;
  void on_close(const std::shared_ptr<net::Peer>& peer, const net::CloseInfo& info) override;
  std::size_t max_message_bytes() const override { return settings_.max_message_bytes; }

  // POST /api/v1/register once the body is understood (register_endpoint.cpp).
  net::HttpResponse register_agent(const RegistrationRequest& request);
  // GET /api/v1/agents: every agent, or one (nullopt when unknown).
  Json agents_json() const;
  std::optional<Json> agent_json(const std::string& agent_id) const;
  // LOBBY_BROADCAST to one agent or BROADCAST_ALL (broadcast.cpp); the HTTP answer.
  net::HttpResponse broadcast(const std::string& receiver_id, const std::string& event_type, const Json& data);

  Json status() const;
  void shutdown();
  const Settings& settings() const { return settings_; }
  HubContext& context() { return context_; }
  std::string http_error_metric(const std::string& code);  // counts an HTTP error in the metrics

 private:
  // ---- session.cpp
  using Prepared = Expected<std::vector<StoredCapability>, std::string>;
  void handle(const std::shared_ptr<net::Peer>& peer, std::string_view frame, const wire::Message& m,
              std::optional<Prepared>& prepared, Outbox& out);
  void handle_register_client(Session& s, const wire::Message& m, Prepared prepared, Outbox& out);
  void handle_unregister_client(Session& s, Outbox& out);
  void handle_discover(Session& s, const wire::Message& m, Outbox& out);
  void handle_custom(const std::shared_ptr<net::Peer>& peer, const Json& message, std::string_view frame, Outbox& out);
  void decode_failed(Session& s, const proto::CodecError& e, Outbox& out);
  void end_expired(Session& s, Outbox& out);
  void expire_session(std::uint64_t peer_id);
  void close_unregistered(std::uint64_t peer_id);
  Session* session_of(std::uint64_t peer_id);
  void ensure_bucket(AgentRecord& agent, TimePoint now) const;

  // ---- routing.cpp
  struct Resolution {
    std::shared_ptr<net::Peer> peer;   // where to deliver
    std::optional<ErrorReport> error;  // why not (neither set: dropped silently, fault alp.offline.stale-status)
  };
  Resolution resolve_receiver(const std::string& receiver_id, std::string_view message_type);
  void route(Session& from, const wire::Message& m, std::string_view frame, Outbox& out);
  // The bytes to deliver: the sender's frame as received, unless something must change
  // (a deprecated auth_token is never passed on to another agent).
  std::string forward_text(const wire::Message& m, std::string_view frame) const;
  void report(Outbox& out, const std::shared_ptr<net::Peer>& peer, const std::string& receiver, ErrorReport e);
  std::string encode(const wire::Message& m) const;  // lobby-originated message -> bytes
  std::string encode_json(Json m) const;
  std::shared_ptr<net::Peer> live_peer(const AgentRecord& agent);

  // ---- invocation.cpp
  void invoke_request(Session& from, const wire::Message& m, std::string_view frame, Outbox& out);
  void invoke_response(Session& from, const wire::Message& m, std::string_view frame, Outbox& out);
  void invoke_failed(Outbox& out, const std::shared_ptr<net::Peer>& peer, const std::string& requester,
                     const std::string& request_id, const std::optional<std::string>& conversation_id, ErrorReport e);
  void arm_timeout(const std::pair<std::string, std::string>& key, Pending& p);
  void invoke_timed_out(const std::pair<std::string, std::string>& key, std::uint64_t generation);
  void finish_pending(std::map<std::pair<std::string, std::string>, Pending>::iterator it);
  void responder_gone(const std::string& agent_id, Outbox& out);

  HubContext& context_;
  const Settings settings_;
  mutable std::mutex mutex_;
  Registry registry_;
  std::map<std::uint64_t, Session> sessions_;  // peer id -> session
  // (responder agent_id, request message_id) -> pending invocation
  std::map<std::pair<std::string, std::string>, Pending> pending_;
  bool stopping_ = false;
  // Planted bug alp.planted.stale-route-after-reconnect: the sessions in the order they opened,
  // and, per departed agent, the session that took its "slot" (the one opened last before it
  // left): where its messages go from then on.
  std::vector<std::uint64_t> opened_order_;
  std::map<std::string, std::uint64_t> recycled_slot_;
};

}  // namespace ac::ref::alp

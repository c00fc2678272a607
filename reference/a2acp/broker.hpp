// The ProtocolBrokerAgent (a2acp-1.0.md): the WebSocket endpoint /a2acp/ws where agents attach,
// and everything the broker does with their messages, under one mutex:
//
//   broker.cpp     attachment (?agent_id=, optional ?token=), the frame pipeline (rate limits,
//                  size, schema, protocol version, payload size, identity, the five token
//                  rules) and dispatch; error messages; disconnects
//   handshake.cpp  initiate_handshake -> accept_handshake to the target -> its decision ->
//                  handshake result + contract (or an error); handshake timeout;
//                  terminate_collaboration
//   routing.cpp    messages under a contract (payload.contract_id): contract checks, payload
//                  validation, PII encryption, per-collaboration rate, delivery, pending
//                  requests and their routing timeout, responses routed back
//
// Locking: frames are decoded outside the lock; state is read and changed under it; frames to
// send are collected in an Outbox and sent after the lock is released (Peer::send_text never
// blocks, but keeping it outside the lock keeps the critical section short).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "harness/net/types.hpp"
#include "harness/protocols/a2acp/codec.hpp"
#include "harness/protocols/a2acp/messages.hpp"
#include "reference/a2acp/contracts.hpp"
#include "reference/a2acp/rate_limits.hpp"
#include "reference/a2acp/settings.hpp"
#include "reference/a2acp/tokens.hpp"
#include "reference/core/hub.hpp"

namespace ac::ref::a2acp {

namespace wire = proto::a2acp;

// Frames decided under the lock, sent after it is released.
class Outbox {
 public:
  void send(const std::shared_ptr<net::Peer>& peer, std::string text) { frames_.emplace_back(peer, std::move(text)); }
  void flush() {
    for (auto& [peer, text] : frames_) peer->send_text(std::move(text));
    frames_.clear();
  }
  ~Outbox() { flush(); }

 private:
  std::vector<std::pair<std::shared_ptr<net::Peer>, std::string>> frames_;
};

class Broker final : public net::WsHandler, public std::enable_shared_from_this<Broker> {
 public:
  Broker(HubContext& context, std::shared_ptr<const Settings> settings, std::shared_ptr<Authenticator> auth);

  net::UpgradeDecision on_upgrade(const net::HttpRequest& request) override;
  void on_open(const std::shared_ptr<net::Peer>& peer) override;
  void on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool binary) override;
  void on_close(const std::shared_ptr<net::Peer>& peer, const net::CloseInfo& info) override;
  std::size_t max_message_bytes() const override { return settings_->transport_max_bytes; }

  Json agents_json() const;  // GET /a2acp/agents
  Json status() const;       // GET /healthz
  void shutdown();

 private:
  struct Connection {
    std::shared_ptr<net::Peer> peer;
    std::string agent_id;   // the attached agent ("" until its first authenticated message)
    wire::Agent identity;   // whom the broker's errors to this connection are addressed to
  };
  struct PendingHandshake {
    std::uint64_t seq = 0;
    Contract contract;  // generated and validated, ids assigned
    std::uint64_t source_peer = 0;
    std::optional<std::string> correlation_id;
    net::Scheduler::TimerId timer = 0;
  };

  // ---- broker.cpp
  void handle(Connection& c, const wire::Message& m, std::string_view frame, TimePoint now, Outbox& out);
  std::vector<std::string> required_capabilities(const wire::Message& m, TimePoint now) const;
  void bind(Connection& c, const std::string& agent_id);
  std::shared_ptr<net::Peer> online_peer(const std::string& agent_id) const;
  Connection* connection(std::uint64_t peer_id);
  // An error message from the broker to `to`, sent on `peer`. `retry_after` is used for the
  // retryable codes (TIMEOUT, INTERNAL_ERROR, RATE_LIMIT_EXCEEDED); the others always carry 0.
  // Needs no lock (it touches only the token cache and the metrics).
  void send_error(Outbox& out, const std::shared_ptr<net::Peer>& peer, const wire::Agent& to, const Failure& failure,
                  const std::optional<std::string>& intent, const std::optional<std::string>& correlation_id,
                  std::uint64_t retry_after = 0);
  std::string encode(const wire::Message& m) const { return wire::encode(m); }

  // ---- handshake.cpp
  void initiate(Connection& c, const wire::Message& m, const std::string& token_domain, TimePoint now, Outbox& out);
  void decide(Connection& c, const wire::Message& m, TimePoint now, Outbox& out);
  void terminate(Connection& c, const wire::Message& m, Outbox& out);
  void handshake_timed_out(const std::string& collaboration_id);
  bool store_collaboration(Contract contract, TimePoint now);
  void drop_collaboration(std::map<std::string, Collaboration>::iterator it);

  // ---- routing.cpp
  void route(Connection& c, const wire::Message& m, std::string_view frame, TimePoint now, Outbox& out);
  void request_timed_out(const std::string& contract_id, std::uint64_t seq);
  void agent_gone(const std::string& agent_id, std::uint64_t peer_id, Outbox& out);

  template <typename F>
  net::Scheduler::TimerId after(std::chrono::milliseconds delay, F fn) {
    std::weak_ptr<Broker> weak = weak_from_this();
    return context_.scheduler.after(delay, [weak, fn = std::move(fn)]() mutable {
      if (auto self = weak.lock()) fn(*self);
    });
  }

  HubContext& context_;
  std::shared_ptr<const Settings> settings_;
  std::shared_ptr<Authenticator> auth_;

  mutable std::mutex mutex_;
  std::map<std::uint64_t, Connection> connections_;       // peer id -> connection
  std::map<std::string, std::uint64_t> online_;           // agent id -> peer id
  std::map<std::string, PendingHandshake> handshakes_;    // collaboration id -> pending handshake
  std::map<std::string, Collaboration> collaborations_;   // contract id -> collaboration
  std::map<std::string, std::string> contract_of_;        // collaboration id -> contract id
  // Contract ids of the collaborations with requests awaiting a response: what a departing agent
  // can affect. Collaborations stay stored for their contract's lifetime (up to
  // max_collaborations), and a scan of all of them on every disconnect took a tenth of a long
  // fuzz campaign's CPU and halved its rate within 100 s (issue 16, perf).
  std::set<std::string> awaiting_;
  RateLimits rates_;
  std::uint64_t seq_ = 0;
  bool stopping_ = false;
};

// Helpers shared by the broker's files.
const Json* generic_payload(const wire::Message& m);  // request/response/event payload, or nullptr
std::optional<std::string> string_member(const Json* object, const char* key);
std::optional<std::string> correlation_of(const wire::Message& m);

}  // namespace ac::ref::a2acp

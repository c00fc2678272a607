// Routing under a contract (a2acp-1.0.md §Message Routing), after the token rules passed:
//   1. payload.contract_id (for an error message: payload.contract_id or error.details.contract_id)
//      names a stored, unexpired contract binding this source and target -> else CONTRACT_VIOLATION
//   2. direction: requests go source -> target, responses target -> source, events and errors
//      either way                                                          -> else CONTRACT_VIOLATION
//   3. per-collaboration rate limit (100/minute)                            -> RATE_LIMIT_EXCEEDED
//   4. a PII contract requires security.encryption = aes256                -> SECURITY_POLICY_VIOLATION
//   5. a request: intent (when present) is the contract's (CONTRACT_VIOLATION), the payload
//      without contract_id/correlation_id matches the input schema (SCHEMA_MISMATCH); it is
//      delivered unchanged and awaits a response within the routing timeout (TIMEOUT)
//   6. a response (or an error from the target): it must answer a pending request (matched by
//      correlation_id, else the oldest) and match the output schema (CONTRACT_VIOLATION); it is
//      delivered to the source unchanged
// A target that is not attached gets nothing and the sender gets TIMEOUT (retryable).
#include "reference/a2acp/broker.hpp"

namespace ac::ref::a2acp {
namespace {

// Where the contract id of a message sits.
std::optional<std::string> contract_id_of(const wire::Message& m) {
  if (const Json* p = generic_payload(m)) return string_member(p, "contract_id");
  if (const auto* e = m.get<wire::Error>()) {
    if (auto id = string_member(&e->extra, "contract_id")) return id;
    if (e->error.details) return string_member(&*e->error.details, "contract_id");
  }
  return std::nullopt;
}

}  // namespace

void Broker::route(Connection& c, const wire::Message& m, std::string_view frame, TimePoint now, Outbox& out) {
  const Settings& s = *settings_;
  const auto& env = m.envelope;
  const std::string& src = env.source_agent.agent_id;
  const std::string& dst = env.target_agent.agent_id;
  const auto intent = env.intent;
  const auto correlation = correlation_of(m);
  const wire::MessageType type = m.type();
  auto fail = [&](Failure f, std::uint64_t retry = 0) { send_error(out, c.peer, env.source_agent, f, intent, correlation, retry); };
  auto deliver = [&](const std::shared_ptr<net::Peer>& peer) {
    out.send(peer, std::string(frame));
    context_.metrics.routed(proto::ProtocolId::a2acp);
  };

  if (type == wire::MessageType::accept_handshake || type == wire::MessageType::handshake_decision ||
      type == wire::MessageType::handshake_result) {
    return fail({"CONTRACT_VIOLATION", "handshake messages are exchanged with the broker (" + s.broker.agent_id + "), not routed to agents",
                 Json{{"pointer", "/target_agent/agent_id"}, {"rule", "handshake-via-broker"}}});
  }
  const auto contract_id = contract_id_of(m);
  auto it = contract_id ? collaborations_.find(*contract_id) : collaborations_.end();
  if (it == collaborations_.end()) {
    if (s.faults.contract_accept_unknown) {
      if (auto peer = online_peer(dst)) deliver(peer);
      return;
    }
    if (!contract_id) {
      return fail({"CONTRACT_VIOLATION", "a message to another agent must reference its contract in payload.contract_id (§Message Routing)",
                   Json{{"pointer", "/payload/contract_id"}, {"rule", "required"}}});
    }
    return fail({"CONTRACT_VIOLATION", "unknown contract_id \"" + *contract_id + "\"",
                 Json{{"pointer", "/payload/contract_id"}, {"contract_id", *contract_id}, {"reason", "unknown"}}});
  }
  Collaboration& collab = it->second;
  const Contract& k = collab.contract;
  if (k.expired(now)) {
    return fail({"CONTRACT_VIOLATION", "contract " + k.contract_id + " has expired",
                 Json{{"contract_id", k.contract_id}, {"reason", "expired"}, {"expired_at", Json(k.to_json().at("expires_at"))}}});
  }
  const bool forward = src == k.source.agent_id && dst == k.target.agent_id;
  const bool backward = src == k.target.agent_id && dst == k.source.agent_id;
  if (!forward && !backward) {
    return fail({"CONTRACT_VIOLATION",
                 "contract " + k.contract_id + " binds " + k.source.agent_id + " (source) and " + k.target.agent_id + " (target)",
                 Json{{"contract_id", k.contract_id}, {"reason", "parties"}, {"source_agent_id", k.source.agent_id}, {"target_agent_id", k.target.agent_id}}});
  }
  if (type == wire::MessageType::request && !forward) {
    return fail({"CONTRACT_VIOLATION", "only the contract's source (" + k.source.agent_id + ") sends requests under it",
                 Json{{"contract_id", k.contract_id}, {"reason", "direction"}}});
  }
  if (type == wire::MessageType::response && !backward) {
    return fail({"CONTRACT_VIOLATION", "only the contract's target (" + k.target.agent_id + ") sends responses under it",
                 Json{{"contract_id", k.contract_id}, {"reason", "direction"}}});
  }
  if (!s.faults.ratelimit_disabled) {
    if (auto refused = rates_.collaboration(k.collaboration_id, now)) {
      return fail({"RATE_LIMIT_EXCEEDED",
                   "collaboration rate limit exceeded (" + std::to_string(s.rate_per_collaboration) + " messages per " +
                       std::to_string(s.rate_window.count()) + " ms)",
                   Json{{"limit", refused->limit}, {"messages", s.rate_per_collaboration}, {"window_ms", s.rate_window.count()},
                        {"collaboration_id", k.collaboration_id}}},
                  retry_seconds(refused->wait));
    }
  }
  if (k.pii && type != wire::MessageType::error && !s.faults.policy_skip_pii_encryption &&
      env.security.encryption.value_or("none") != "aes256") {
    return fail({"SECURITY_POLICY_VIOLATION", "intent " + k.intent + " carries PII: security.encryption must be aes256 (§PII Handling)",
                 Json{{"pointer", "/security/encryption"}, {"required", "aes256"}, {"contract_id", k.contract_id}}});
  }

  if (type == wire::MessageType::request) {
    if (intent && *intent != k.intent) {
      return fail({"CONTRACT_VIOLATION", "intent \"" + *intent + "\" is not the contract's (\"" + k.intent + "\")",
                   Json{{"pointer", "/intent"}, {"contract_id", k.contract_id}, {"reason", "intent"}}});
    }
    if (!s.faults.contract_skip_payload_validation) {
      const Json* payload = generic_payload(m);
      if (auto v = check_input(k, payload != nullptr ? *payload : Json::object())) {
        return fail({"SCHEMA_MISMATCH", "payload does not match the contract's input schema: " + v->message,
                     Json{{"pointer", "/payload" + v->pointer}, {"rule", v->rule}, {"contract_id", k.contract_id}}});
      }
    }
    auto peer = online_peer(dst);
    if (!peer) {
      return fail({"TIMEOUT", "target agent " + dst + " is not connected to the broker", Json{{"target_agent_id", dst}, {"reason", "not-connected"}}});
    }
    if (collab.pending.size() >= s.max_pending_requests_per_collaboration) {
      return fail({"RATE_LIMIT_EXCEEDED", "too many requests awaiting a response in this collaboration",
                   Json{{"limit", "pending-requests-per-collaboration"}, {"max", s.max_pending_requests_per_collaboration}}},
                  1);
    }
    const std::uint64_t seq = ++seq_;
    PendingRequest p;
    p.message_id = env.message_id;
    p.correlation_id = correlation;
    p.intent = intent ? intent : std::optional<std::string>(k.intent);
    p.source_agent = env.source_agent;
    const std::string cid = k.contract_id;
    p.timer = after(k.routing_timeout, [cid, seq](Broker& b) { b.request_timed_out(cid, seq); });
    collab.pending.emplace(seq, std::move(p));
    awaiting_.insert(cid);
    deliver(peer);
    return;
  }

  if (backward && (type == wire::MessageType::response || type == wire::MessageType::error)) {
    auto match = collab.pending.end();
    for (auto p = collab.pending.begin(); p != collab.pending.end(); ++p) {
      if (correlation && p->second.correlation_id == correlation) {
        match = p;
        break;
      }
    }
    if (match == collab.pending.end()) match = collab.pending.begin();
    if (match == collab.pending.end()) {
      return fail({"CONTRACT_VIOLATION", "no request is awaiting a response under contract " + k.contract_id,
                   Json{{"contract_id", k.contract_id}, {"reason", "no-pending-request"}}});
    }
    if (type == wire::MessageType::response && !s.faults.contract_skip_response_validation) {
      const Json* payload = generic_payload(m);
      if (auto v = check_output(k, payload != nullptr ? *payload : Json::object())) {
        return fail({"CONTRACT_VIOLATION", "response payload violates the contract's output schema: " + v->message,
                     Json{{"pointer", "/payload" + v->pointer}, {"rule", v->rule}, {"contract_id", k.contract_id}, {"reason", "output-schema"}}});
      }
    }
    context_.scheduler.cancel(match->second.timer);
    collab.pending.erase(match);
    if (collab.pending.empty()) awaiting_.erase(k.contract_id);
    if (auto peer = online_peer(dst)) deliver(peer);  // a source that left gets nothing
    return;
  }

  // Events (either way) and errors from the source.
  auto peer = online_peer(dst);
  if (!peer) {
    return fail({"TIMEOUT", "agent " + dst + " is not connected to the broker", Json{{"target_agent_id", dst}, {"reason", "not-connected"}}});
  }
  deliver(peer);
}

void Broker::request_timed_out(const std::string& contract_id, std::uint64_t seq) {
  Outbox out;
  std::lock_guard lock(mutex_);
  auto it = collaborations_.find(contract_id);
  if (it == collaborations_.end()) return;
  auto p = it->second.pending.find(seq);
  if (p == it->second.pending.end()) return;
  PendingRequest request = std::move(p->second);
  it->second.pending.erase(p);
  if (it->second.pending.empty()) awaiting_.erase(contract_id);
  if (settings_->faults.routing_no_timeout) return;
  auto peer = online_peer(request.source_agent.agent_id);
  if (!peer) return;
  const Contract& k = it->second.contract;
  send_error(out, peer, request.source_agent,
             {"TIMEOUT",
              "target agent " + k.target.agent_id + " did not respond within " + std::to_string(k.routing_timeout.count()) + " ms",
              Json{{"contract_id", k.contract_id},
                   {"target_agent_id", k.target.agent_id},
                   {"request_message_id", request.message_id},
                   {"timeout_ms", k.routing_timeout.count()},
                   {"reason", "routing-timeout"}}},
             request.intent, request.correlation_id);
}

void Broker::agent_gone(const std::string& agent_id, std::uint64_t peer_id, Outbox& out) {
  // Handshakes: a departed source is forgotten; a departed target times the handshake out now.
  for (auto it = handshakes_.begin(); it != handshakes_.end();) {
    PendingHandshake& h = it->second;
    const bool source_left = h.source_peer == peer_id;
    const bool target_left = h.contract.target.agent_id == agent_id;
    if (!source_left && !target_left) {
      ++it;
      continue;
    }
    context_.scheduler.cancel(h.timer);
    if (!source_left && !settings_->faults.handshake_no_timeout) {
      if (Connection* source = connection(h.source_peer)) {
        send_error(out, source->peer, h.contract.source,
                   {"TIMEOUT", "target agent " + agent_id + " disconnected before answering the handshake",
                    Json{{"target_agent_id", agent_id}, {"collaboration_id", h.contract.collaboration_id}, {"reason", "target-disconnected"}}},
                   std::string("initiate_handshake"), h.correlation_id);
      }
    }
    it = handshakes_.erase(it);
  }
  // Requests: those to the departed agent time out now; those from it are forgotten. Only
  // collaborations with requests awaiting a response can have any (awaiting_).
  for (auto a = awaiting_.begin(); a != awaiting_.end();) {
    auto found = collaborations_.find(*a);
    if (found == collaborations_.end()) {
      a = awaiting_.erase(a);
      continue;
    }
    Collaboration& collab = found->second;
    const Contract& k = collab.contract;
    if (k.target.agent_id == agent_id) {
      for (auto& [seq, p] : collab.pending) {
        context_.scheduler.cancel(p.timer);
        if (settings_->faults.routing_no_timeout) continue;
        if (auto peer = online_peer(p.source_agent.agent_id)) {
          send_error(out, peer, p.source_agent,
                     {"TIMEOUT", "target agent " + agent_id + " disconnected before responding",
                      Json{{"contract_id", k.contract_id}, {"request_message_id", p.message_id}, {"reason", "target-disconnected"}}},
                     p.intent, p.correlation_id);
        }
      }
      collab.pending.clear();
    } else if (k.source.agent_id == agent_id) {
      for (auto& [seq, p] : collab.pending) context_.scheduler.cancel(p.timer);
      collab.pending.clear();
    }
    a = collab.pending.empty() ? awaiting_.erase(a) : std::next(a);
  }
}

}  // namespace ac::ref::a2acp

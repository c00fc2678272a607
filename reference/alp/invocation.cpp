// Capability invocation through the lobby (§7.3.2, §7.3.3, §9, §10.1 step 5, §11).
//
// INVOKE_CAPABILITY_REQUEST, checked in this order before it is delivered:
//   receiver (see routing.cpp) -> capability name (CAPABILITY_NOT_FOUND) -> capability_version
//   (CAPABILITY_VERSION_MISMATCH) -> authorization_rules (ACCESS_DENIED) -> input_schema
//   (INVALID_PAYLOAD_SCHEMA) -> pending-table limits (RATE_LIMIT_EXCEEDED) -> delivered.
// A refusal goes to the requester as PROTOCOL_ERROR (offending_message_id = the request's
// message_id, conversation_id = the request's) or, with invoke_error_format "response", as an
// INVOKE_CAPABILITY_RESPONSE from the lobby with status error.
//
// A delivered request is pending, keyed by (responder, request message_id), until the responder
// sends a final status (success or error). in_progress and pending_async responses are routed and
// re-arm the timeout (invoke_timeout_ms since the responder's last word); at the timeout the
// requester gets TIMEOUT_ERROR. Only the agent the request went to may answer it, only to the
// requester (ACCESS_DENIED otherwise); a response to a request that is not pending (never routed
// to that agent, finished or timed out) is refused the same way. When the responder disconnects,
// its pending requests end with RECEIVER_UNAVAILABLE to their requesters. A retransmitted request
// (same message_id, same requester, still pending) is ignored: message_id is the idempotency key (§5).
#include "harness/protocols/typed/stamp.hpp"
#include "reference/alp/capability_check.hpp"
#include "reference/alp/core.hpp"

namespace ac::ref::alp {
namespace {
constexpr auto kAlp = proto::ProtocolId::alp;

std::size_t nesting_depth(const Json& j) {
  std::size_t deepest = 0;
  if (j.is_structured()) {
    for (const auto& v : j) deepest = std::max(deepest, nesting_depth(v));
    return deepest + 1;
  }
  return 0;
}

Json violations_json(const std::vector<schema::Violation>& violations) {
  Json out = Json::array();
  for (const auto& v : violations) out.push_back({{"pointer", "/payload/input_data" + v.pointer}, {"rule", v.rule}, {"message", v.message}});
  return out;
}
}  // namespace

void Core::invoke_failed(Outbox& out, const std::shared_ptr<net::Peer>& peer, const std::string& requester,
                         const std::string& request_id, const std::optional<std::string>& conversation_id, ErrorReport e) {
  if (!peer) return;
  if (settings_.invoke_error_format == InvokeErrorFormat::protocol_error) {
    e.offending_message_id = request_id;
    e.conversation_id = conversation_id;
    return report(out, peer, requester, std::move(e));
  }
  wire::InvokeCapabilityResponse r;
  r.request_message_id = request_id;
  r.status = "error";
  r.error_details = wire::ErrorObject{e.code, e.message, std::move(e.details), e.retryable, Json::object()};
  wire::Message m = wire::make_message(settings_.lobby_id, requester, std::move(r), conversation_id);
  context_.metrics.error(kAlp, e.code);
  out.send(peer, encode(m));
}

void Core::invoke_request(Session& from, const wire::Message& m, std::string_view frame, Outbox& out) {
  const auto& req = *m.get<wire::InvokeCapabilityRequest>();
  if (settings_.faults.planted_crash_deep_input && nesting_depth(req.input_data) >= 48) {
    volatile int* nowhere = nullptr;  // planted bug (fuzzer proof): a crash on deep input_data
    *nowhere = 1;
  }
  const wire::Envelope& env = m.envelope;
  const Faults& f = settings_.faults;
  const std::string& caller = f.sender_trust_client ? env.sender_id : from.agent_id;
  auto fail = [&](std::string code, std::string message, Json details, bool retryable = false) {
    invoke_failed(out, from.peer, from.agent_id, env.message_id, env.conversation_id,
                  ErrorReport{std::move(code), std::move(message), std::move(details), retryable, std::nullopt, std::nullopt});
  };

  Resolution r = resolve_receiver(env.receiver_id, m.type_name());
  if (r.error) {
    return invoke_failed(out, from.peer, from.agent_id, env.message_id, env.conversation_id, std::move(*r.error));
  }
  if (!r.peer) return;
  const AgentRecord& receiver = *registry_.find(env.receiver_id);

  const Selection sel = select_capability(receiver, req.capability_name, req.capability_version, f.invoke_ignore_capability_version);
  if (sel.outcome == Selection::Outcome::not_found) {
    return fail("CAPABILITY_NOT_FOUND", "agent " + receiver.agent_id + " does not advertise capability " + req.capability_name,
                Json{{"receiver_id", receiver.agent_id}, {"capability_name", req.capability_name}});
  }
  if (sel.outcome == Selection::Outcome::version_mismatch) {
    return fail("CAPABILITY_VERSION_MISMATCH",
                "agent " + receiver.agent_id + " does not advertise version " + req.capability_version.value_or("") + " of " +
                    req.capability_name,
                Json{{"receiver_id", receiver.agent_id},
                     {"capability_name", req.capability_name},
                     {"requested_version", req.capability_version.value_or("")},
                     {"advertised_versions", sel.advertised_versions}});
  }
  const StoredCapability& cap = *sel.capability;
  if (!f.invoke_skip_authorization) {
    const AgentRecord* me = registry_.find(caller);
    const Authorization auth = authorize(cap.capability, caller, me ? me->roles : std::vector<std::string>{});
    if (!auth.allowed) {
      return fail("ACCESS_DENIED", auth.reason,
                  Json{{"capability_name", cap.capability.name},
                       {"authorization_type", cap.capability.authorization_rules ? cap.capability.authorization_rules->type : ""}});
    }
  }
  if (settings_.validate_input_schema && !f.invoke_skip_input_schema) {
    const auto violations = check_input(cap, req.input_data);
    if (!violations.empty()) {
      return fail("INVALID_PAYLOAD_SCHEMA",
                  "input_data does not match the input_schema of " + cap.capability.name + " " + cap.capability.capability_version +
                      ": " + violations.front().message,
                  Json{{"capability_name", cap.capability.name}, {"violations", violations_json(violations)}});
    }
  }

  const auto key = std::make_pair(receiver.agent_id, env.message_id);
  if (auto it = pending_.find(key); it != pending_.end()) {
    if (it->second.requester == caller) {
      context_.metrics.error(kAlp, "DUPLICATE_REQUEST_IGNORED");  // a retransmission: the first one is in flight
      return;
    }
    return fail("MESSAGE_MALFORMED", "message_id " + env.message_id + " already names a pending request to " + receiver.agent_id,
                Json{{"pointer", "/message_id"}, {"rule", "unique"}});
  }
  AgentRecord* requester = registry_.find(caller);
  const std::size_t mine = requester ? requester->pending_requests : 0;
  if (mine >= settings_.max_pending_per_agent || pending_.size() >= settings_.max_pending) {
    return fail("RATE_LIMIT_EXCEEDED",
                "too many invocations awaiting a final response (" + std::to_string(mine) + " of yours; the lobby keeps at most " +
                    std::to_string(settings_.max_pending_per_agent) + " per agent)",
                Json{{"reason", "pending_invocations"}, {"limit", settings_.max_pending_per_agent}}, true);
  }
  Pending& p = pending_[key];
  p.request_id = env.message_id;
  p.requester = caller;
  p.responder = receiver.agent_id;
  p.conversation_id = env.conversation_id;
  p.capability_name = cap.capability.name;
  if (requester) ++requester->pending_requests;
  arm_timeout(key, p);
  out.send(r.peer, forward_text(m, frame));
  context_.metrics.routed(kAlp);
}

void Core::invoke_response(Session& from, const wire::Message& m, std::string_view frame, Outbox& out) {
  const auto& resp = *m.get<wire::InvokeCapabilityResponse>();
  const wire::Envelope& env = m.envelope;
  const Faults& f = settings_.faults;
  const std::string& responder = f.sender_trust_client ? env.sender_id : from.agent_id;
  auto it = pending_.find({responder, resp.request_message_id});
  if (it == pending_.end() && f.response_accept_from_anyone) {
    for (auto j = pending_.begin(); j != pending_.end(); ++j) {
      if (j->second.request_id == resp.request_message_id) {
        it = j;
        break;
      }
    }
    if (it == pending_.end()) return route(from, m, frame, out);  // fault: routed like a direct message
  }
  auto refuse = [&](std::string message, Json details) {
    report(out, from.peer, from.agent_id,
           ErrorReport{"ACCESS_DENIED", std::move(message), std::move(details), false, env.message_id, env.conversation_id});
  };
  if (it == pending_.end()) {
    return refuse("no INVOKE_CAPABILITY_REQUEST with message_id " + resp.request_message_id +
                      " is pending for you: it was never routed to you, was already answered with a final status, or timed out",
                  Json{{"pointer", "/payload/request_message_id"}});
  }
  Pending& p = it->second;
  if (env.receiver_id != p.requester) {
    return refuse("request " + p.request_id + " came from " + p.requester + "; its responses go back to " + p.requester +
                      ", not to " + env.receiver_id,
                  Json{{"pointer", "/receiver_id"}, {"requester", p.requester}});
  }
  const bool final = resp.status == "success" || resp.status == "error";
  AgentRecord* requester = registry_.find(p.requester);
  std::shared_ptr<net::Peer> peer = requester != nullptr && requester->online ? live_peer(*requester) : nullptr;
  if (!peer) {
    report(out, from.peer, from.agent_id,
           ErrorReport{"RECEIVER_UNAVAILABLE", "the requester " + p.requester + " is offline; the response was not delivered",
                       Json{{"receiver_id", p.requester}}, !final, env.message_id, env.conversation_id});
  } else if (!(f.stream_drop_progress && resp.status == "in_progress")) {
    if (f.stream_rewrite_conversation_id) {
      wire::Message copy = m;
      copy.envelope.auth_token.reset();
      copy.envelope.conversation_id = proto::typed::new_uuid_v4();
      out.send(peer, wire::encode(copy));
    } else {
      out.send(peer, forward_text(m, frame));
    }
    context_.metrics.routed(kAlp);
  }
  if (final) {
    finish_pending(it);
  } else {
    arm_timeout(it->first, p);
  }
}

void Core::arm_timeout(const std::pair<std::string, std::string>& key, Pending& p) {
  if (settings_.faults.invoke_no_timeout) return;
  if (p.timer != 0) context_.scheduler.cancel(p.timer);
  const std::uint64_t generation = ++p.generation;
  std::weak_ptr<Core> weak = weak_from_this();
  p.timer = context_.scheduler.after(settings_.invoke_timeout, [weak, key, generation] {
    if (auto self = weak.lock()) self->invoke_timed_out(key, generation);
  });
}

void Core::invoke_timed_out(const std::pair<std::string, std::string>& key, std::uint64_t generation) {
  Outbox out;
  std::lock_guard lock(mutex_);
  auto it = pending_.find(key);
  if (it == pending_.end() || it->second.generation != generation) return;
  const Pending p = it->second;
  it->second.timer = 0;  // it ran
  finish_pending(it);
  AgentRecord* requester = registry_.find(p.requester);
  std::shared_ptr<net::Peer> peer = requester != nullptr && requester->online ? live_peer(*requester) : nullptr;
  invoke_failed(out, peer, p.requester, p.request_id, p.conversation_id,
                ErrorReport{"TIMEOUT_ERROR",
                            "no final INVOKE_CAPABILITY_RESPONSE from " + p.responder + " within " +
                                std::to_string(settings_.invoke_timeout.count()) + " ms of its last word",
                            Json{{"receiver_id", p.responder},
                                 {"capability_name", p.capability_name},
                                 {"timeout_ms", settings_.invoke_timeout.count()}},
                            true, std::nullopt, std::nullopt});
}

void Core::finish_pending(std::map<std::pair<std::string, std::string>, Pending>::iterator it) {
  if (it->second.timer != 0) context_.scheduler.cancel(it->second.timer);
  if (AgentRecord* requester = registry_.find(it->second.requester); requester != nullptr && requester->pending_requests > 0) {
    --requester->pending_requests;
  }
  pending_.erase(it);
}

void Core::responder_gone(const std::string& agent_id, Outbox& out) {
  for (auto it = pending_.lower_bound({agent_id, std::string()}); it != pending_.end() && it->first.first == agent_id;) {
    const Pending p = it->second;
    auto next = std::next(it);
    finish_pending(it);
    it = next;
    AgentRecord* requester = registry_.find(p.requester);
    std::shared_ptr<net::Peer> peer = requester != nullptr && requester->online ? live_peer(*requester) : nullptr;
    invoke_failed(out, peer, p.requester, p.request_id, p.conversation_id,
                  ErrorReport{"RECEIVER_UNAVAILABLE", p.responder + " disconnected before sending a final response",
                              Json{{"receiver_id", p.responder}, {"capability_name", p.capability_name}}, true, std::nullopt,
                              std::nullopt});
  }
}

}  // namespace ac::ref::alp

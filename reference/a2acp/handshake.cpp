// The handshake (a2acp-1.0.md §Message Lifecycle / Handshake Flow, §Contract Negotiation):
//   1. the source's request initiate_handshake {target_agent_id, requested_intent}, already
//      authenticated (the token's capabilities checked against the intent's: rule 4 doubles as
//      the contract's "permission verification");
//   2. the broker checks that the target exists and serves the intent (CAPABILITY_NOT_FOUND),
//      generates the contract and validates it (SECURITY_POLICY_VIOLATION, SCHEMA_MISMATCH), and
//      that the target is attached (TIMEOUT, retryable, when it is not);
//   3. request accept_handshake to the target {requested_intent, collaboration_id,
//      source_agent_id, source_agent, contract_id, contract, correlation_id};
//   4. the target's response accept_handshake {accepted, reason}, matched by its
//      collaboration_id / correlation_id when it echoes one, else to its oldest pending handshake;
//   5. accepted: the contract is stored and the source gets the response initiate_handshake
//      {collaboration_id, contract}; the target gets an event contract_established (both agents
//      notified); declined: the source gets an error (rejection_code, reading A2-18).
// No decision within the handshake timeout (5 s): TIMEOUT to the source. A decision for no
// pending handshake (late, or never asked) is ignored.
#include "harness/protocols/a2acp/builders.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "reference/a2acp/broker.hpp"

namespace ac::ref::a2acp {

void Broker::initiate(Connection& c, const wire::Message& m, const std::string& token_domain, TimePoint now, Outbox& out) {
  const Settings& s = *settings_;
  const auto& p = *m.get<wire::InitiateHandshake>();
  const auto& env = m.envelope;
  const auto correlation = correlation_of(m);
  auto fail = [&](Failure f, std::uint64_t retry = 0) {
    send_error(out, c.peer, env.source_agent, f, std::string("initiate_handshake"), correlation, retry);
  };

  const AgentSpec* target = s.directory.find(p.target_agent_id);
  if (target == nullptr) {
    return fail({"CAPABILITY_NOT_FOUND", "no agent \"" + p.target_agent_id + "\" is registered with the broker",
                 Json{{"target_agent_id", p.target_agent_id}, {"pointer", "/payload/target_agent_id"}}});
  }
  auto intent = target->intents.find(p.requested_intent);
  if (intent == target->intents.end()) {
    Json available = Json::array();
    for (const auto& [name, spec] : target->intents) available.push_back(name);
    return fail({"CAPABILITY_NOT_FOUND", "agent " + target->agent_id + " does not serve intent \"" + p.requested_intent + "\"",
                 Json{{"target_agent_id", target->agent_id},
                      {"requested_intent", p.requested_intent},
                      {"available_intents", available},
                      {"pointer", "/payload/requested_intent"}}});
  }

  NegotiationInput in;
  in.source = env.source_agent;
  in.source_spec = s.directory.find(env.source_agent.agent_id);
  in.source_domain = in.source_spec != nullptr ? in.source_spec->domain : token_domain;
  in.target = target;
  in.intent = &intent->second;
  in.handshake_extra = &p.extra;
  auto contract = negotiate(s, in, now);
  if (!contract) return fail(contract.error());

  std::size_t mine = 0;
  for (const auto& [id, h] : handshakes_) mine += h.contract.source.agent_id == env.source_agent.agent_id ? 1 : 0;
  if (mine >= s.max_pending_handshakes_per_agent || handshakes_.size() >= s.max_pending_handshakes) {
    return fail({"RATE_LIMIT_EXCEEDED", "too many handshakes awaiting a decision",
                 Json{{"limit", mine >= s.max_pending_handshakes_per_agent ? "pending-handshakes-per-agent" : "pending-handshakes"}}},
                1);
  }
  auto target_peer = online_peer(target->agent_id);
  if (!target_peer) {
    return fail({"TIMEOUT", "target agent " + target->agent_id + " is not connected to the broker",
                 Json{{"target_agent_id", target->agent_id}, {"reason", "not-connected"}}});
  }

  contract->collaboration_id = proto::typed::new_uuid_v4();
  contract->contract_id = proto::typed::new_uuid_v4();
  const std::string collaboration_id = contract->collaboration_id;

  wire::HandshakeOffer offer;
  offer.requested_intent = p.requested_intent;
  offer.collaboration_id = collaboration_id;
  offer.source_agent_id = env.source_agent.agent_id;
  offer.extra = {{"source_agent", {{"agent_id", env.source_agent.agent_id}, {"domain", env.source_agent.domain}, {"version", env.source_agent.version}}},
                 {"contract_id", contract->contract_id},
                 {"contract", contract->to_json()},
                 {"correlation_id", collaboration_id}};
  out.send(target_peer, encode(wire::make_accept_handshake(s.broker, target->identity(), auth_->broker_token(target->agent_id), offer)));
  context_.metrics.routed(proto::ProtocolId::a2acp);

  PendingHandshake h;
  h.seq = ++seq_;
  h.contract = std::move(*contract);
  h.source_peer = c.peer->id();
  h.correlation_id = correlation;
  h.timer = after(s.handshake_timeout, [collaboration_id](Broker& b) { b.handshake_timed_out(collaboration_id); });
  handshakes_.emplace(collaboration_id, std::move(h));
}

void Broker::decide(Connection& c, const wire::Message& m, TimePoint now, Outbox& out) {
  const Settings& s = *settings_;
  const auto& d = *m.get<wire::HandshakeDecision>();
  const std::string& from = m.envelope.source_agent.agent_id;
  auto wanted = string_member(&d.extra, "collaboration_id");
  if (!wanted) wanted = string_member(&d.extra, "correlation_id");

  auto match = handshakes_.end();
  for (auto it = handshakes_.begin(); it != handshakes_.end(); ++it) {
    if (it->second.contract.target.agent_id != from) continue;
    if (wanted) {
      if (it->first == *wanted) {
        match = it;
        break;
      }
    } else if (match == handshakes_.end() || it->second.seq < match->second.seq) {
      match = it;
    }
  }
  if (match == handshakes_.end()) return;  // late (the source was told TIMEOUT) or never asked: ignored
  PendingHandshake h = std::move(match->second);
  handshakes_.erase(match);
  context_.scheduler.cancel(h.timer);
  Connection* source = connection(h.source_peer);
  if (source == nullptr) return;
  const wire::Agent to = h.contract.source;
  const std::string collaboration_id = h.contract.collaboration_id;

  if (!d.accepted && !s.faults.handshake_ignore_rejection) {
    Json details = {{"target_agent_id", h.contract.target.agent_id}, {"collaboration_id", collaboration_id}, {"rejected", true}};
    if (d.reason) details["reason"] = *d.reason;
    send_error(out, source->peer, to,
               {s.rejection_code, "target agent " + h.contract.target.agent_id + " declined the collaboration" + (d.reason ? ": " + *d.reason : std::string()),
                std::move(details)},
               std::string("initiate_handshake"), h.correlation_id);
    return;
  }

  const Json contract_json = h.contract.to_json();
  const std::string target_id = h.contract.target.agent_id;
  const wire::Agent target_identity = h.contract.target;
  if (!store_collaboration(std::move(h.contract), now)) {
    send_error(out, source->peer, to,
               {"INTERNAL_ERROR", "the broker's contract store is full", Json{{"max_collaborations", s.max_collaborations}}},
               std::string("initiate_handshake"), h.correlation_id);
    return;
  }

  wire::HandshakeResult result;
  result.collaboration_id = collaboration_id;
  result.contract.contract_id = contract_json.at("contract_id").get<std::string>();
  result.contract.input_schema = contract_json.at("input_schema");
  result.contract.output_schema = contract_json.at("output_schema");
  result.contract.security_policy = contract_json.at("security_policy");
  for (const auto& [key, value] : contract_json.items()) {
    if (key != "contract_id" && key != "input_schema" && key != "output_schema" && key != "security_policy") result.contract.extra[key] = value;
  }
  if (h.correlation_id) result.extra["correlation_id"] = *h.correlation_id;
  wire::Message answer{wire::make_envelope(s.broker, to, auth_->broker_token(to.agent_id), "initiate_handshake"), std::move(result)};
  if (s.faults.handshake_no_collaboration_id) {
    Json j = wire::to_json(answer);
    j["payload"].erase("collaboration_id");
    out.send(source->peer, j.dump());
  } else {
    out.send(source->peer, encode(answer));
  }
  context_.metrics.routed(proto::ProtocolId::a2acp);

  if (s.notify_target) {
    if (auto peer = online_peer(target_id)) {
      out.send(peer, encode(wire::make_event(s.broker, target_identity, auth_->broker_token(target_id), std::string("contract_established"),
                                             Json{{"collaboration_id", collaboration_id}, {"contract", contract_json}})));
    }
  }
  (void)c;
}

// The store is bounded (max_collaborations). When it is full, the expired collaborations go
// first; then those no exchange can use now: no request awaiting a response, and a party not
// attached. Refusing every new handshake instead made a minute-long fuzz campaign (sessions that
// leave their contracts behind) get INTERNAL_ERROR for every handshake from then on, unnoticed.
// Each sweep frees what the whole store holds at once, so sweeps are rare.
bool Broker::store_collaboration(Contract contract, TimePoint now) {
  if (collaborations_.size() >= settings_->max_collaborations) {
    auto sweep = [&](auto&& droppable) {
      for (auto it = collaborations_.begin(); it != collaborations_.end();) {
        auto next = std::next(it);
        if (it->second.pending.empty() && droppable(it->second.contract)) drop_collaboration(it);
        it = next;
      }
    };
    sweep([&](const Contract& k) { return k.expired(now); });
    if (collaborations_.size() >= settings_->max_collaborations) {
      sweep([&](const Contract& k) { return !online_.contains(k.source.agent_id) || !online_.contains(k.target.agent_id); });
    }
    if (collaborations_.size() >= settings_->max_collaborations) return false;
  }
  const std::string contract_id = contract.contract_id;
  contract_of_[contract.collaboration_id] = contract_id;
  collaborations_.emplace(contract_id, Collaboration{std::move(contract), {}});
  return true;
}

void Broker::drop_collaboration(std::map<std::string, Collaboration>::iterator it) {
  for (auto& [seq, p] : it->second.pending) context_.scheduler.cancel(p.timer);
  rates_.forget_collaboration(it->second.contract.collaboration_id);
  contract_of_.erase(it->second.contract.collaboration_id);
  awaiting_.erase(it->first);
  collaborations_.erase(it);
}

void Broker::terminate(Connection& c, const wire::Message& m, Outbox& out) {
  const Settings& s = *settings_;
  const auto& env = m.envelope;
  const Json* payload = generic_payload(m);
  const auto correlation = correlation_of(m);
  auto fail = [&](Failure f) { send_error(out, c.peer, env.source_agent, f, std::string("terminate_collaboration"), correlation); };
  auto contract_id = string_member(payload, "contract_id");
  if (!contract_id) {
    if (auto collaboration = string_member(payload, "collaboration_id")) {
      if (auto it = contract_of_.find(*collaboration); it != contract_of_.end()) contract_id = it->second;
      else contract_id = std::string();
    }
  }
  if (!contract_id) {
    return fail({"SCHEMA_MISMATCH", "terminate_collaboration needs payload.collaboration_id or payload.contract_id",
                 Json{{"pointer", "/payload/collaboration_id"}, {"rule", "required"}}});
  }
  auto it = collaborations_.find(*contract_id);
  if (it == collaborations_.end()) {
    return fail({"CONTRACT_VIOLATION", "no such collaboration", Json{{"contract_id", *contract_id}}});
  }
  const Contract& k = it->second.contract;
  const std::string& me = env.source_agent.agent_id;
  if (me != k.source.agent_id && me != k.target.agent_id) {
    return fail({"CONTRACT_VIOLATION", "agent " + me + " is not a party to this collaboration", Json{{"contract_id", *contract_id}}});
  }
  const std::string collaboration_id = k.collaboration_id;
  const std::string cid = k.contract_id;
  const wire::Agent other = me == k.source.agent_id ? k.target : k.source;
  drop_collaboration(it);

  Json body = {{"collaboration_id", collaboration_id}, {"contract_id", cid}, {"terminated", true}};
  if (correlation) body["correlation_id"] = *correlation;
  wire::Message answer{wire::make_envelope(s.broker, env.source_agent, auth_->broker_token(me), std::string("terminate_collaboration")),
                       wire::Response{body}};
  out.send(c.peer, encode(answer));
  if (auto peer = online_peer(other.agent_id); peer && other.agent_id != me) {
    out.send(peer, encode(wire::make_event(s.broker, other, auth_->broker_token(other.agent_id), std::string("collaboration_terminated"),
                                           Json{{"collaboration_id", collaboration_id}, {"contract_id", cid}, {"terminated_by", me}})));
  }
}

void Broker::handshake_timed_out(const std::string& collaboration_id) {
  Outbox out;
  std::lock_guard lock(mutex_);
  auto it = handshakes_.find(collaboration_id);
  if (it == handshakes_.end()) return;
  PendingHandshake h = std::move(it->second);
  handshakes_.erase(it);
  if (settings_->faults.handshake_no_timeout) return;  // the source is never told
  Connection* source = connection(h.source_peer);
  if (source == nullptr) return;
  send_error(out, source->peer, h.contract.source,
             {"TIMEOUT",
              "target agent " + h.contract.target.agent_id + " did not answer accept_handshake within " +
                  std::to_string(settings_->handshake_timeout.count()) + " ms",
              Json{{"target_agent_id", h.contract.target.agent_id},
                   {"collaboration_id", collaboration_id},
                   {"timeout_ms", settings_->handshake_timeout.count()},
                   {"reason", "handshake-timeout"}}},
             std::string("initiate_handshake"), h.correlation_id);
}

}  // namespace ac::ref::a2acp

// The reference AgentProtocol agent: the message pipeline, routing and demo actions (agent.hpp).
#include "reference/agentprotocol/agent.hpp"

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/agentprotocol/builders.hpp"
#include "harness/protocols/agentprotocol/codec.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "reference/core/lenient_types.hpp"

namespace ac::ref::agentprotocol {
namespace {

constexpr std::size_t kMaxEchoedId = 256;  // longer ids/correlationIds are not copied into errors
constexpr const char* kUnknownSender = "unknown";

// A string member at `ptr` of an unverified message, when it is short enough to echo.
std::optional<std::string> short_string_at(const Json& message, const char* ptr) {
  const Json::json_pointer p(ptr);
  if (!message.is_object() || !message.contains(p)) return std::nullopt;
  const Json& v = message.at(p);
  if (!v.is_string() || v.get_ref<const std::string&>().empty() || v.get_ref<const std::string&>().size() > kMaxEchoedId) {
    return std::nullopt;
  }
  return v.get<std::string>();
}

std::string sender_hint(const Json& message, const Origin& origin) {
  if (auto id = short_string_at(message, "/from/agentId")) return *id;
  return origin.fallback_sender.empty() ? std::string(kUnknownSender) : origin.fallback_sender;
}

}  // namespace

Agent::Agent(HubContext& context, AgentSettings settings, crypto::Ed25519PrivateKey key)
    : context_(context),
      settings_(std::move(settings)),
      key_(std::move(key)),
      agent_id_(ap::agent_id(key_.public_key())),
      limiter_(settings_.rate_limit_burst, settings_.rate_limit_per_second) {
  if (settings_.reply_bad_signature) {
    if (auto k = crypto::Ed25519PrivateKey::generate()) wrong_key_ = std::move(*k);
  }
}

ap::From Agent::self(bool for_hello) const {
  ap::From f;
  f.agent_id = agent_id_;
  f.name = settings_.name;
  if (!(for_hello && settings_.hello_no_capabilities)) f.capabilities = capability_uris();
  return f;
}

Json Agent::seal(const ap::Message& message) const {
  Json j = ap::to_json(message);
  if (message.type() == ap::MessageType::error && settings_.error_no_correlation_id) j["payload"].erase("correlationId");
  if (message.type() == ap::MessageType::response && settings_.response_wrong_correlation) {
    j["payload"]["correlationId"] = j["payload"].value("correlationId", std::string()) + "-other";
  }
  if (settings_.reply_unsigned) return j;
  auto sealed = ap::sign(j, settings_.reply_bad_signature && wrong_key_ ? *wrong_key_ : key_);
  return sealed ? std::move(*sealed) : j;  // signing with a valid key does not fail
}

void Agent::send(const std::shared_ptr<Sink>& sink, const ap::Message& message) {
  std::string code;
  if (const auto* e = message.get<ap::Error>()) {
    code = e->code;
    context_.metrics.error(proto::ProtocolId::agentprotocol, code);
  }
  context_.metrics.routed(proto::ProtocolId::agentprotocol);
  sink->reply(seal(message), code);
}

void Agent::send_error(const std::shared_ptr<Sink>& sink, const std::string& to, const std::string& code, const std::string& text,
                       std::optional<std::string> correlation, Json details) {
  if (settings_.planted_leak_invalid && code == "INVALID_MESSAGE") {
    std::lock_guard lock(rejected_mutex_);  // planted bug (fuzzer proof): 1 MiB per rejection, never freed
    rejected_cache_.emplace_back(std::size_t{1} << 20, 'r');
  }
  std::optional<Json> d;
  if (details.is_object() && !details.empty()) d = std::move(details);
  send(sink, ap::make_error(self(), ap::to_agent(to.empty() ? std::string(kUnknownSender) : to), code, text,
                            std::move(correlation), std::move(d)));
}

void Agent::reject(const std::string& why, const std::string& rule, const Origin& origin, const std::shared_ptr<Sink>& sink) {
  send_error(sink, origin.fallback_sender, "INVALID_MESSAGE", why, std::nullopt, {{"rule", rule}, {"pointer", ""}});
}

void Agent::handle(std::string_view text, const Origin& origin, const std::shared_ptr<Sink>& sink) {
  // 1. Size and strict JSON: duplicate keys, invalid UTF-8, trailing data are refused here, so
  //    the signature is never checked over a text that two parsers would read differently.
  if (text.size() > settings_.max_message_bytes) {
    return reject("the message is larger than " + std::to_string(settings_.max_message_bytes) + " bytes", "max-size", origin, sink);
  }
  json::ReadLimits limits;
  limits.max_bytes = settings_.max_message_bytes;
  auto parsed = json::parse_strict(text, limits);
  if (!parsed) {
    return send_error(sink, origin.fallback_sender, "INVALID_MESSAGE", "not a JSON message: " + parsed.error().describe(),
                      std::nullopt,
                      {{"rule", "json." + std::string(json::rule_name(parsed.error().rule))},
                       {"pointer", parsed.error().pointer},
                       {"offset", parsed.error().offset}});
  }
  const Json& raw = *parsed;
  if (!raw.is_object()) {
    return send_error(sink, origin.fallback_sender, "INVALID_MESSAGE", "an AgentProtocol message is a JSON object", std::nullopt,
                      {{"rule", "type"}, {"pointer", ""}, {"section", "agentprotocol-0.1.md §Base Message"}});
  }
  const std::string sender = sender_hint(raw, origin);
  const auto correlation = short_string_at(raw, "/payload/correlationId");

  // 2. "Always verify signatures before trusting message content" (§Security Considerations).
  bool verified = false;
  if (!settings_.skip_verify && (raw.contains("signature") || settings_.require_signature)) {
    auto v = ap::verify(raw);
    if (!v) {
      const auto& e = v.error();
      return send_error(sink, sender, std::string(e.code()), "signature verification failed: " + e.describe(), correlation,
                        {{"reason", std::string(ap::failure_name(e.reason))},
                         {"pointer", e.pointer},
                         {"section", "agentprotocol-0.1.md §Signature Verification"}});
    }
    verified = true;
  }
  if (sender == agent_id_) return sink->no_reply();  // our own message played back: never answered (no loops)

  // 3. Rate limit per verified sender.
  if (settings_.rate_limit) {
    bool allowed = true;
    std::chrono::milliseconds retry{0};
    {
      std::lock_guard lock(mutex_);
      const auto now = context_.clock();
      allowed = limiter_.allow(sender, now);
      if (!allowed) retry = limiter_.retry_after(sender, now);
    }
    if (!allowed) {
      return send_error(sink, sender, "RATE_LIMITED", "too many messages from this agent; retry later", correlation,
                        {{"retryAfterMs", retry.count()}});
    }
  }

  // 4. The message rules (schemas/agentprotocol via the typed codec).
  Json checked = raw;
  if (settings_.protocol_accept_any && checked.contains("protocol") && checked["protocol"].is_string()) {
    checked["protocol"] = std::string(ap::kProtocol);
  }
  if (settings_.coerce_wrong_types) {  // fault: a wrongly typed member is read as the type expected
    if (auto lax = coerce_wrong_types(proto::Catalog::builtin().profile(proto::ProtocolId::agentprotocol), checked)) checked = std::move(*lax);
  }
  auto message = ap::from_json(std::move(checked));
  if (!message) {
    const auto& e = message.error();
    return send_error(sink, sender, "INVALID_MESSAGE", e.describe(), correlation,
                      {{"pointer", e.pointer}, {"rule", e.rule}, {"section", e.section}});
  }
  if (verified) bind(origin, message->envelope.from.agent_id);
  route(raw, text, *message, origin, sink);
}

void Agent::bind(const Origin& origin, const std::string& sender) {
  if (!origin.peer) return;
  std::lock_guard lock(mutex_);
  const std::uint64_t peer_id = origin.peer->id();
  auto existing = bindings_.find(sender);
  if (existing != bindings_.end()) return;  // bound to a live connection: no takeover by a replay
  auto& ids = by_connection_[peer_id];
  if (ids.size() >= settings_.max_bindings_per_connection) return;  // still answered, just not reachable by relay
  ids.insert(sender);
  bindings_.emplace(sender, Binding{origin.peer});
}

void Agent::disconnected(std::uint64_t peer_id) {
  std::lock_guard lock(mutex_);
  auto it = by_connection_.find(peer_id);
  if (it == by_connection_.end()) return;
  for (const auto& id : it->second) {
    auto b = bindings_.find(id);
    if (b != bindings_.end() && b->second.peer->id() == peer_id) bindings_.erase(b);
  }
  by_connection_.erase(it);
}

void Agent::route(const Json& raw, std::string_view text, const ap::Message& message, const Origin& origin,
                  const std::shared_ptr<Sink>& sink) {
  const ap::To& to = message.envelope.to;
  const std::string& sender = message.envelope.from.agent_id;
  if (to.broadcast) {
    // Relayed unchanged (the original bytes, signature intact) to every other connected agent;
    // the reference is one of the recipients, so it handles the message too.
    if (settings_.relay && !settings_.broadcast_ignored) {
      std::map<std::uint64_t, std::shared_ptr<net::Peer>> targets;
      {
        std::lock_guard lock(mutex_);
        for (const auto& [id, b] : bindings_) {
          if (id == sender || (origin.peer && b.peer->id() == origin.peer->id())) continue;
          targets.emplace(b.peer->id(), b.peer);
        }
      }
      for (const auto& [id, peer] : targets) {
        peer->send_text(std::string(text));
        context_.metrics.routed(proto::ProtocolId::agentprotocol);
      }
    }
    return handle_local(message, sink);
  }
  if (to.agent_id == agent_id_) return handle_local(message, sink);
  std::shared_ptr<net::Peer> target;
  if (settings_.relay) {
    std::lock_guard lock(mutex_);
    if (auto b = bindings_.find(to.agent_id); b != bindings_.end()) target = b->second.peer;
  }
  if (target) {
    target->send_text(std::string(text));
    context_.metrics.routed(proto::ProtocolId::agentprotocol);
    return sink->no_reply();
  }
  send_error(sink, sender, "UNKNOWN_AGENT", "no agent " + to.agent_id + " is known here", short_string_at(raw, "/payload/correlationId"),
             {{"agentId", to.agent_id}});
}

void Agent::handle_local(const ap::Message& message, const std::shared_ptr<Sink>& sink) {
  const std::string& sender = message.envelope.from.agent_id;
  switch (message.type()) {
    case ap::MessageType::hello: {
      const auto& hello = *message.get<ap::Hello>();
      if (!settings_.hello_accept_any_version && settings_.supported_versions.count(hello.version) == 0) {
        return send_error(sink, sender, "INVALID_MESSAGE", "unsupported protocol version " + hello.version, std::nullopt,
                          {{"pointer", "/payload/version"},
                           {"rule", "supported-version"},
                           {"supported", std::vector<std::string>(settings_.supported_versions.begin(), settings_.supported_versions.end())}});
      }
      return send(sink, ap::make_hello(self(true), ap::to_agent(sender), settings_.features));
    }
    case ap::MessageType::request:
      return handle_request(message, *message.get<ap::Request>(), sink);
    case ap::MessageType::notify:
      if (settings_.notify_answered) {
        ap::Response r;
        r.correlation_id = message.envelope.id;
        r.status = "received";
        return send(sink, ap::Message{ap::make_envelope(self(), ap::to_agent(sender)), r});
      }
      return sink->no_reply();
    case ap::MessageType::response:
    case ap::MessageType::error:
      // The reference sends no requests, so there is nothing to match; never answer an error.
      return sink->no_reply();
  }
  sink->no_reply();
}

void Agent::handle_request(const ap::Message& message, const ap::Request& request, const std::shared_ptr<Sink>& sink) {
  const std::string& sender = message.envelope.from.agent_id;
  ActionOutcome outcome = run_action(request.action, request.params, settings_.limits);
  if (!outcome.supported) {
    return send_error(sink, sender, settings_.error_wrong_code ? "INVALID_MESSAGE" : "CAPABILITY_NOT_SUPPORTED",
                      "Agent does not support " + request.action + " capability", request.correlation_id,
                      {{"requested", request.action}, {"available", action_names()}});
  }
  if (!outcome.ok) return send_error(sink, sender, outcome.error_code, outcome.error_message, request.correlation_id, outcome.details);

  ap::Message response = ap::make_response(message, self(), "success", outcome.result);
  std::optional<std::chrono::milliseconds> timeout;
  if (request.timeout && !settings_.timeout_ignored) timeout = std::chrono::milliseconds(*request.timeout);
  if (outcome.delay.count() == 0) return send(sink, response);  // an instant action meets any timeout

  const bool times_out = timeout && *timeout < outcome.delay;
  ap::Message reply = times_out ? ap::make_error_reply(message, self(), "TIMEOUT",
                                                       "the request did not complete within its timeout of " +
                                                           std::to_string(timeout->count()) + " ms",
                                                       Json{{"timeoutMs", timeout->count()}, {"action", request.action}})
                                : std::move(response);
  const auto delay = times_out ? *timeout : outcome.delay;

  std::uint64_t id = 0;
  std::string refusal;
  bool stopping = false;
  {
    std::lock_guard lock(mutex_);
    const auto mine = pending_by_sender_.find(sender);
    if (stopped_) {
      stopping = true;
      refusal = "the agent is shutting down";
    } else if (pending_.size() >= settings_.max_pending ||
               (mine != pending_by_sender_.end() && mine->second >= settings_.max_pending_per_sender)) {
      refusal = "too many requests in flight (at most " + std::to_string(settings_.max_pending_per_sender) + " per agent)";
    } else {
      id = next_pending_++;
      pending_.emplace(id, Pending{sender, request.correlation_id, sink, 0});
      ++pending_by_sender_[sender];
    }
  }
  if (id == 0) {
    return send_error(sink, sender, stopping ? "INTERNAL_ERROR" : "RATE_LIMITED", refusal, request.correlation_id,
                      stopping ? Json::object() : Json{{"inFlightLimit", settings_.max_pending_per_sender}});
  }
  // Scheduled outside the lock: a manual scheduler may run the callback at once.
  const auto timer = context_.scheduler.after(delay, [weak = weak_from_this(), id, reply = std::move(reply)]() mutable {
    if (auto self = weak.lock()) self->finish_pending(id, std::move(reply));
  });
  std::lock_guard lock(mutex_);
  if (auto p = pending_.find(id); p != pending_.end()) p->second.timer = timer;
}

void Agent::finish_pending(std::uint64_t id, ap::Message reply) {
  std::shared_ptr<Sink> sink;
  {
    std::lock_guard lock(mutex_);
    auto it = pending_.find(id);
    if (it == pending_.end()) return;  // cancelled by shutdown
    sink = std::move(it->second.sink);
    if (auto c = pending_by_sender_.find(it->second.sender); c != pending_by_sender_.end() && --c->second == 0) {
      pending_by_sender_.erase(c);
    }
    pending_.erase(it);
  }
  // A timed-out action is simply dropped: `reply` is then its TIMEOUT error.
  reply.envelope.timestamp = proto::typed::utc_timestamp(context_.clock());
  send(sink, reply);
}

void Agent::shutdown() {
  std::map<std::uint64_t, Pending> pending;
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    pending.swap(pending_);
    pending_by_sender_.clear();
  }
  for (auto& [id, p] : pending) {
    context_.scheduler.cancel(p.timer);
    send_error(p.sink, p.sender, "INTERNAL_ERROR", "the agent is shutting down", p.correlation, Json::object());
  }
}

Json Agent::status() const {
  std::lock_guard lock(mutex_);
  return {{"agentId", agent_id_},
          {"connected_agents", bindings_.size()},
          {"pending_requests", pending_.size()},
          {"relay", settings_.relay},
          {"rate_limited_senders", limiter_.senders()}};
}

}  // namespace ac::ref::agentprotocol

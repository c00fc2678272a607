#include "reference/chopsticks/controller.hpp"

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/profile.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "reference/core/lenient_types.hpp"

namespace ac::ref::chopsticks {
namespace {

const proto::Profile& profile() { return proto::Catalog::builtin().profile(proto::ProtocolId::chopsticks); }

std::string error_frame(const std::string& text) { return Json{{"type", "error"}, {"error", text}}.dump(); }

const std::string* string_member(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

}  // namespace

Controller::Controller(HubContext& context, ControllerSettings settings) : context_(context), settings_(std::move(settings)) {}

void Controller::on_open(const std::shared_ptr<net::Peer>&) { context_.metrics.connection_opened(proto::ProtocolId::chopsticks); }

void Controller::on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool binary) {
  // §Error Handling: "Invalid message format | N/A | Message ignored".
  if (binary) return;
  auto parsed = json::parse_strict(frame);
  if (!parsed || !parsed->is_object()) return;
  if (settings_.coerce_wrong_types) {  // fault: a wrongly typed member is read as the type expected
    if (auto lax = coerce_wrong_types(profile(), *parsed)) *parsed = std::move(*lax);
  }
  const Json& msg = *parsed;
  const std::string* type = string_member(msg, "type");
  if (type == nullptr) return;
  if (*type == "hello") return handle_hello(peer, msg);

  // Every other message must be well-formed and come from a registered agent.
  if (!profile().check(msg)) return;
  if (*type == "resp") return handle_resp(peer, msg);
  std::lock_guard lock(mutex_);
  const std::string agent_id = agent_of(peer->id());
  if (agent_id.empty()) return;
  Agent& agent = agents_.at(agent_id);
  agent.last_seen = context_.clock();
  if (*type == "guilds") {
    agent.guilds.clear();
    for (const auto& g : msg.at("guildIds")) agent.guilds.insert(g.get<std::string>());
  } else if (*type == "event") {
    const std::string& guild = msg.at("guildId").get_ref<const std::string&>();
    if (msg.at("event") == "released") {
      agent.sessions.erase(guild);  // "Controller marks agent as available"
    } else if (msg.value("ok", false)) {
      if (agent.sessions.size() >= settings_.max_sessions_per_agent && !agent.sessions.count(guild)) {
        context_.metrics.error(proto::ProtocolId::chopsticks, "SESSIONS_CAP");  // ignored: the agent holds too many
      } else {
        agent.sessions[guild] = msg;
      }
    }
  }
}

void Controller::handle_hello(const std::shared_ptr<net::Peer>& peer, const Json& msg) {
  // §Version Negotiation and hello / Error Conditions, in this order: the version gates the
  // connection (missing or incompatible: error then close 1008); then a missing agentId is ignored.
  const auto version = msg.find("protocolVersion");
  if (version == msg.end() && !settings_.accept_missing_version) {
    return reject(peer, "Missing protocolVersion. Controller expects " + *settings_.supported_versions.begin() + ".");
  }
  if (version != msg.end()) {
    bool supported = version->is_string() && settings_.supported_versions.count(version->get<std::string>()) != 0;
    if (!supported && settings_.planted_accept_version_prefix && version->is_string()) {
      // Planted bug (fuzzer proof): a prefix match instead of an exact one.
      for (const auto& v : settings_.supported_versions) supported = supported || version->get_ref<const std::string&>().starts_with(v);
    }
    if (!supported && !settings_.accept_any_version) {
      const std::string shown = version->is_string() ? version->get<std::string>() : version->dump();
      return reject(peer, "Incompatible protocol version " + shown + ". Controller expects " +
                              *settings_.supported_versions.begin() + ".");
    }
  }
  const std::string* agent_id = string_member(msg, "agentId");
  if (agent_id == nullptr || agent_id->empty()) {
    if (settings_.answer_missing_agent_id) peer->send_text(error_frame("Missing agentId"));
    return;  // "Missing agentId: Ignored (no response)"
  }
  Json checked = msg;
  if (version == msg.end()) checked["protocolVersion"] = *settings_.supported_versions.begin();  // fault path only
  if (!checked["protocolVersion"].is_string()) checked["protocolVersion"] = *settings_.supported_versions.begin();
  if (!profile().check(checked)) return;  // malformed hello: ignored like any invalid message

  std::string refusal;
  {
    std::lock_guard lock(mutex_);
    const std::string current = agent_of(peer->id());
    auto live = agents_.find(*agent_id);
    if (!current.empty() && current != *agent_id) {
      refusal = "This connection is registered as " + current + "; a hello may not change the agentId.";
    } else if (live != agents_.end() && live->second.peer->id() != peer->id() && !settings_.allow_takeover) {
      refusal = "agentId " + *agent_id + " is already connected; refusing to take over a live agent.";
    } else {
      if (live != agents_.end() && live->second.peer->id() != peer->id()) {
        by_connection_.erase(live->second.peer->id());
        agents_.erase(live);
      }
      register_agent(peer, *agent_id, msg);
    }
  }
  if (!refusal.empty()) reject(peer, refusal);
}

void Controller::register_agent(const std::shared_ptr<net::Peer>& peer, const std::string& agent_id, const Json& msg) {
  Agent& agent = agents_[agent_id];  // first hello registers, later ones are heartbeats
  agent.peer = peer;
  // (Only a string under the version faults' relaxations; found by reading the fault paths.)
  const auto version = msg.find("protocolVersion");
  agent.protocol_version = version == msg.end() ? std::string() : version->is_string() ? version->get<std::string>() : version->dump();
  agent.hello = msg;
  agent.last_seen = context_.clock();
  agent.guilds.clear();
  if (auto g = msg.find("guildIds"); g != msg.end() && g->is_array()) {
    for (const auto& id : *g) {
      if (id.is_string()) agent.guilds.insert(id.get<std::string>());
    }
  }
  by_connection_[peer->id()] = agent_id;
}

void Controller::handle_resp(const std::shared_ptr<net::Peer>& peer, const Json& msg) {
  const std::string id = msg.at("id").get<std::string>();
  {
    std::lock_guard lock(mutex_);
    if (agent_of(peer->id()).empty()) return;  // not a registered agent
    auto it = pending_.find(id);
    if (it == pending_.end()) return;  // unknown or late: ignored
    // Only the agent the request went to may answer it.
    if (it->second.peer_id != peer->id() && !settings_.accept_resp_from_anyone) {
      context_.metrics.error(proto::ProtocolId::chopsticks, "RESP_FROM_WRONG_AGENT");
      return;
    }
  }
  finish(id, RpcOutcome{RpcOutcome::Kind::response, msg});
}

void Controller::request(const std::string& agent_id, const std::string& op, Json data, std::function<void(RpcOutcome)> done) {
  const std::string id = proto::typed::new_uuid_v4();
  std::shared_ptr<net::Peer> peer;
  {
    std::lock_guard lock(mutex_);
    auto it = agents_.find(agent_id);
    if (it != agents_.end()) peer = it->second.peer;
  }
  if (!peer) return done(RpcOutcome{RpcOutcome::Kind::unknown_agent, {}});
  {
    std::lock_guard lock(mutex_);
    if (pending_.size() >= settings_.max_pending) {
      context_.metrics.error(proto::ProtocolId::chopsticks, "PENDING_CAP");
      return done(RpcOutcome{RpcOutcome::Kind::busy, {}});
    }
    Pending p{agent_id, peer->id(), std::move(done), 0};
    p.timer = context_.scheduler.after(settings_.request_timeout, [this, id] {
      finish(id, RpcOutcome{RpcOutcome::Kind::timeout, {}});
    });
    pending_.emplace(id, std::move(p));
  }
  peer->send_text(Json{{"type", "req"}, {"id", id}, {"op", op}, {"data", std::move(data)}, {"agentId", agent_id}}.dump());
  context_.metrics.routed(proto::ProtocolId::chopsticks);
}

void Controller::finish(const std::string& id, RpcOutcome outcome) {
  Pending p;
  {
    std::lock_guard lock(mutex_);
    auto it = pending_.find(id);
    if (it == pending_.end()) return;  // already finished (resp raced the timeout)
    p = std::move(it->second);
    pending_.erase(it);
  }
  if (outcome.kind != RpcOutcome::Kind::timeout) context_.scheduler.cancel(p.timer);
  if (p.done) p.done(std::move(outcome));
}

void Controller::reject(const std::shared_ptr<net::Peer>& peer, const std::string& text) {
  context_.metrics.error(proto::ProtocolId::chopsticks, "VERSION_REJECTED");
  if (!settings_.no_error_frame) peer->send_text(error_frame(text));
  peer->close(settings_.wrong_close_code ? net::close_code::normal : net::close_code::policy_violation, "protocol version");
}

std::string Controller::agent_of(std::uint64_t peer_id) const {
  auto it = by_connection_.find(peer_id);
  return it == by_connection_.end() ? std::string() : it->second;
}

void Controller::on_close(const std::shared_ptr<net::Peer>& peer, const net::CloseInfo&) {
  context_.metrics.connection_closed(proto::ProtocolId::chopsticks);
  std::vector<std::string> orphaned;
  {
    std::lock_guard lock(mutex_);
    auto it = by_connection_.find(peer->id());
    if (it != by_connection_.end()) {
      auto agent = agents_.find(it->second);
      if (agent != agents_.end() && agent->second.peer->id() == peer->id()) agents_.erase(agent);  // "removes from liveAgents"
      by_connection_.erase(it);
    }
    for (const auto& [id, p] : pending_) {
      if (p.peer_id == peer->id()) orphaned.push_back(id);
    }
  }
  for (const auto& id : orphaned) finish(id, RpcOutcome{RpcOutcome::Kind::agent_gone, {}});
}

void Controller::shutdown() {
  std::vector<std::string> ids;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, p] : pending_) ids.push_back(id);
  }
  for (const auto& id : ids) finish(id, RpcOutcome{RpcOutcome::Kind::agent_gone, {}});
  std::lock_guard lock(mutex_);
  agents_.clear();
  by_connection_.clear();
}

Json Controller::agents_snapshot() const {
  std::lock_guard lock(mutex_);
  Json out = Json::array();
  for (const auto& [id, a] : agents_) {
    Json sessions = Json::array();
    for (const auto& [guild, event] : a.sessions) sessions.push_back(event);
    out.push_back({{"agentId", id},
                   {"protocolVersion", a.protocol_version},
                   {"lastSeen", proto::typed::utc_timestamp(a.last_seen)},
                   {"guildIds", a.guilds},
                   {"ready", a.hello.is_object() && a.hello.contains("ready") ? a.hello["ready"] : Json(false)},
                   {"poolId", a.hello.is_object() && a.hello.contains("poolId") ? a.hello["poolId"] : Json("")},
                   {"sessions", sessions}});
  }
  return out;
}

Json Controller::status() const {
  std::lock_guard lock(mutex_);
  return {{"live_agents", agents_.size()}, {"pending_requests", pending_.size()}};
}

}  // namespace ac::ref::chopsticks

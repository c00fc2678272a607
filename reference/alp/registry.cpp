#include "reference/alp/registry.hpp"

#include <algorithm>
#include <vector>

#include "harness/crypto/base64.hpp"
#include "harness/crypto/random.hpp"
#include "harness/protocols/typed/stamp.hpp"

namespace ac::ref::alp {

bool Registry::held(const AgentRecord& agent, TimePoint now) {
  return agent.session_peer != 0 || agent.online || (!agent.token.empty() && agent.token_expires > now);
}

bool Registry::issue_token(AgentRecord& agent, TimePoint now, std::chrono::milliseconds ttl) {
  // 256 bits from OpenSSL's DRBG: unguessable, and base64url keeps it safe in a query string.
  auto bytes = crypto::random_bytes(32);
  if (!bytes) return false;
  if (!agent.token.empty()) tokens_.erase(agent.token);
  agent.token = crypto::base64url_encode(*bytes);
  agent.token_expires = now + ttl;
  tokens_[agent.token] = agent.agent_id;
  return true;
}

bool Registry::make_room(TimePoint now) {
  if (agents_.size() < max_agents_) return true;
  // A full registry frees the older half of the records no one holds (offline, token expired),
  // least recently seen first, in one scan: freeing only the oldest one scanned all 10,000
  // records again for every new agent under a stream of registrations (a fuzz campaign
  // registers ~1,000 agents a second).
  std::vector<decltype(agents_)::iterator> free;
  for (auto it = agents_.begin(); it != agents_.end(); ++it) {
    if (!held(it->second, now)) free.push_back(it);
  }
  if (free.empty()) return false;
  const std::size_t count = std::max<std::size_t>(1, free.size() / 2);
  std::nth_element(free.begin(), free.begin() + static_cast<std::ptrdiff_t>(count - 1), free.end(),
                   [](const auto& a, const auto& b) { return a->second.last_seen < b->second.last_seen; });
  for (std::size_t i = 0; i < count; ++i) {
    if (!free[i]->second.token.empty()) tokens_.erase(free[i]->second.token);
    agents_.erase(free[i]);
  }
  return true;
}

Registration Registry::register_agent(const RegistrationRequest& request, IdConflict conflict, TimePoint now,
                                      std::chrono::milliseconds ttl) {
  Registration out;
  std::string id = request.agent_id.value_or(proto::typed::new_uuid_v4());
  bool provisioned = !request.agent_id.has_value();
  auto existing = agents_.find(id);
  if (existing != agents_.end() && held(existing->second, now)) {
    switch (conflict) {
      case IdConflict::refuse:
        out.outcome = Registration::Outcome::taken;
        out.message = "agent_id \"" + id + "\" is held by a connected agent or an unexpired token";
        return out;
      case IdConflict::provision:
        do {
          id = proto::typed::new_uuid_v4();
        } while (agents_.count(id) != 0);
        provisioned = true;
        existing = agents_.end();
        break;
      case IdConflict::reissue: {
        AgentRecord& agent = existing->second;
        if (!issue_token(agent, now, ttl)) {
          out.message = "the random source failed";
          return out;
        }
        agent.agent_type = request.agent_type;
        agent.roles = request.roles;
        agent.registered_at = now;
        out.outcome = Registration::Outcome::reissued;
        out.agent = &agent;
        return out;
      }
    }
  }
  const bool renewing = existing != agents_.end();
  if (!renewing && !make_room(now)) {
    out.outcome = Registration::Outcome::full;
    out.message = "the lobby holds its maximum number of agents, all of them live";
    return out;
  }
  AgentRecord& agent = renewing ? existing->second : agents_[id];
  agent.agent_id = id;
  if (!issue_token(agent, now, ttl)) {
    if (!renewing) agents_.erase(id);
    out.message = "the random source failed";
    return out;
  }
  agent.agent_type = request.agent_type;
  agent.roles = request.roles;
  agent.registered_at = now;
  if (renewing) {
    // A new lease on a free id starts clean: the previous holder's capabilities are not this agent's.
    agent.capabilities.clear();
    agent.agent_version.clear();
    agent.sdk_version.clear();
  } else {
    agent.last_seen = now;
  }
  out.outcome = renewing ? Registration::Outcome::renewed
                         : (provisioned ? Registration::Outcome::provisioned : Registration::Outcome::created);
  out.agent = &agent;
  return out;
}

TokenCheck Registry::check_token(std::string_view token, std::string_view agent_id, TimePoint now) {
  TokenCheck c;
  if (token.empty()) {
    c.status = TokenStatus::missing;
    return c;
  }
  auto t = tokens_.find(std::string(token));
  if (t == tokens_.end()) {
    c.status = TokenStatus::invalid;
    return c;
  }
  c.agent = find(t->second);
  if (c.agent == nullptr) {  // cannot happen: records and tokens are removed together
    c.status = TokenStatus::invalid;
    return c;
  }
  if (c.agent->token_expires <= now) {
    c.status = TokenStatus::expired;
  } else if (agent_id != c.agent->agent_id) {
    c.status = TokenStatus::agent_mismatch;
  } else {
    c.status = TokenStatus::ok;
  }
  return c;
}

AgentRecord* Registry::find(std::string_view agent_id) {
  auto it = agents_.find(agent_id);
  return it == agents_.end() ? nullptr : &it->second;
}

const AgentRecord* Registry::find(std::string_view agent_id) const {
  auto it = agents_.find(agent_id);
  return it == agents_.end() ? nullptr : &it->second;
}

AgentRecord* Registry::adopt(const std::string& agent_id, TimePoint now) {
  if (AgentRecord* known = find(agent_id)) return known;
  if (!make_room(now)) return nullptr;
  AgentRecord& agent = agents_[agent_id];
  if (agent.agent_id.empty()) {
    agent.agent_id = agent_id;
    agent.agent_type = "unregistered";
    agent.registered_at = now;
    agent.last_seen = now;
  }
  return &agent;
}

}  // namespace ac::ref::alp

#include "reference/alp/discovery.hpp"

#include <algorithm>

#include "harness/protocols/typed/stamp.hpp"

namespace ac::ref::alp {
namespace {

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

bool has_keyword(const StoredCapability& c, const std::string& wanted) {
  if (!c.capability.keywords) return false;
  const auto& ks = *c.capability.keywords;
  return std::any_of(ks.begin(), ks.end(), [&](const std::string& k) { return iequal(k, wanted); });
}

}  // namespace

bool capability_matches(const StoredCapability& c, const DiscoveryQuery& q) {
  if (q.name && c.capability.name != *q.name) return false;
  if (q.version_range && !q.version_range->satisfied_by(c.version)) return false;
  if (!q.keywords.empty()) {
    auto has = [&](const std::string& k) { return has_keyword(c, k); };
    const bool ok = q.keywords_all ? std::all_of(q.keywords.begin(), q.keywords.end(), has)
                                   : std::any_of(q.keywords.begin(), q.keywords.end(), has);
    if (!ok) return false;
  }
  return true;
}

std::vector<proto::alp::AgentMatch> discover(const Registry& registry, const DiscoveryQuery& q) {
  struct Hit {
    const AgentRecord* agent;
    bool online;
    std::vector<const StoredCapability*> caps;
  };
  std::vector<Hit> hits;
  for (const auto& [id, agent] : registry.agents()) {
    if (!agent.online && !q.include_offline) continue;
    Hit hit{&agent, agent.online, {}};
    for (const auto& c : agent.capabilities) {
      if (capability_matches(c, q)) hit.caps.push_back(&c);
    }
    if (!hit.caps.empty()) hits.push_back(std::move(hit));
  }
  // Connected agents first (the map already orders them by id), then offline ones, freshest first.
  std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
    if (a.online != b.online) return a.online;
    if (!a.online) return a.agent->last_seen > b.agent->last_seen;
    return false;
  });
  if (hits.size() > q.max_results) hits.resize(q.max_results);

  std::vector<proto::alp::AgentMatch> out;
  out.reserve(hits.size());
  for (const auto& h : hits) {
    proto::alp::AgentMatch m;
    m.agent_id = h.agent->agent_id;
    m.agent_type = h.agent->agent_type;
    for (const auto* c : h.caps) m.matching_capabilities.push_back(c->capability);
    // A connected agent is seen now (the WebSocket keep-alive vouches for it); an offline one was
    // last seen when it left.
    m.last_seen_utc = proto::typed::utc_timestamp(h.online ? q.now : h.agent->last_seen);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace ac::ref::alp

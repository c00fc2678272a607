// Chopsticks 1.0.0 driver. Agents connect to the controller's WebSocket; a `hello` template gets
// the fields every hello needs (protocolVersion, agentId, botUserId, tag, ready, guildIds,
// poolId) unless the case gives or removes them. Triggers use the reference's admin API
// (feature chopsticks.admin-api): "request" sends a req through POST /chopsticks/request and
// returns {status, body} (after waiting, bounded, until the agent is listed: see below);
// "agents" returns GET /chopsticks/agents; "agent" returns the record of params.agentId
// (failing when it is not live); "await-agent" waits until params.agentId is listed, the only
// way a case can know that a hello (which has no acknowledgement) has been processed.
#include <chrono>
#include <optional>
#include <thread>

#include "harness/engine/drivers/common.hpp"

namespace ac::engine {
namespace {

class ChopsticksDriver final : public Driver {
 public:
  proto::ProtocolId protocol() const override { return proto::ProtocolId::chopsticks; }
  std::string primary_path() const override { return "ws"; }
  std::string admission_requirement() const override { return "CHOP-lifecycle-accept-connect"; }

  std::vector<std::string> hub_ws_paths() const override { return {"/chopsticks/ws"}; }

  void init_agent(AgentSession& agent, CaseEnv& env) const override {
    env.vars.set("protocol_version", env.target.setting("protocol_version", "1.0.0"));
    (void)agent;
  }

  ConnectResult connect(AgentSession& agent, const Json& step, CaseEnv& env) const override {
    return connect_ws(agent, step, env, "ws", {});
  }

  Expected<Json, std::string> fill(Json m, AgentSession& agent, const Json& step, CaseEnv& env) const override {
    if (m.is_object() && m.contains("type") && m["type"] == "hello") {
      if (!m.contains("protocolVersion")) m["protocolVersion"] = env.target.setting("protocol_version", "1.0.0");
      if (!m.contains("agentId")) m["agentId"] = agent.id;
      if (!m.contains("botUserId")) m["botUserId"] = nullptr;
      if (!m.contains("tag")) m["tag"] = nullptr;
      if (!m.contains("ready")) m["ready"] = true;
      if (!m.contains("guildIds")) m["guildIds"] = Json::array();
      if (!m.contains("poolId")) m["poolId"] = "agentconform-pool";
    }
    return apply_edits(std::move(m), step, env.vars);
  }

  // Polls GET agents (bounded by settings.agent_listed_wait_ms, default 1000) until `wanted`
  // is listed; returns its record, or nothing when it never is.
  static std::optional<Json> wait_until_listed(const Json& wanted, CaseEnv& env) {
    const Json& st = env.target.settings;
    const auto limit = std::chrono::milliseconds(
        st.contains("agent_listed_wait_ms") && st["agent_listed_wait_ms"].is_number_unsigned()
            ? st["agent_listed_wait_ms"].get<std::int64_t>()
            : 1000);
    const auto until = std::chrono::steady_clock::now() + limit;
    // Polls back off (10, 20, 40, 80 ms, ...): a controller under 32 jobs answers a listing of
    // every live agent, and each answer goes into the case's transcript.
    auto pause = std::chrono::milliseconds(10);
    while (wanted.is_string()) {
      auto all = http_json(env, "GET", env.target.path("agents"), {}, "");
      if (!all) return std::nullopt;
      const Json agents = all->is_object() && all->contains("agents") ? (*all)["agents"] : Json::array();
      for (const auto& a : agents) {
        if (a.is_object() && a.contains("agentId") && a["agentId"] == wanted) return a;
      }
      if (std::chrono::steady_clock::now() >= until) return std::nullopt;
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(80));
    }
    return std::nullopt;
  }

  Expected<Json, std::string> trigger(const std::string& action, const Json& params, CaseEnv& env) const override {
    if (action == "agents") return http_json(env, "GET", env.target.path("agents"), {}, "");
    if (action == "agent") {  // one agent's record, by params.agentId
      auto all = http_json(env, "GET", env.target.path("agents"), {}, "");
      if (!all) return all;
      for (const auto& a : all->value("agents", Json::array())) {
        if (a.value("agentId", Json()) == params.value("agentId", Json())) return a;
      }
      return unexpected("no live agent " + params.value("agentId", Json()).dump());
    }
    if (action == "await-agent") {  // params.agentId's record, once the controller lists it
      const Json wanted = params.is_object() && params.contains("agentId") ? params["agentId"] : Json();
      if (auto record = wait_until_listed(wanted, env)) return *record;
      return unexpected("agent " + wanted.dump() + " was not listed within agent_listed_wait_ms");
    }
    if (action == "request") {
      // A hello has no acknowledgement, so a case cannot know when the controller has
      // registered the agent it just greeted. Before asking for a req, wait (bounded) until
      // GET agents lists the agent; if it never does, the request is sent anyway and the
      // controller's answer is what the case sees.
      const Json wanted = params.is_object() && params.contains("agentId") ? params["agentId"] : Json();
      if (wanted.is_string()) (void)wait_until_listed(wanted, env);
      return http_json(env, "POST", env.target.path("request"), {}, params.dump(), /*any_status=*/true);
    }
    return Driver::trigger(action, params, env);
  }
};

}  // namespace

const Driver& chopsticks_driver() {
  static const ChopsticksDriver d;
  return d;
}

}  // namespace ac::engine

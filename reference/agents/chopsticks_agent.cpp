#include "reference/agents/chopsticks_agent.hpp"

#include "reference/agents/agents.hpp"
#include "reference/agents/reconnect.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness/json/strict_reader.hpp"
#include "harness/net/client.hpp"

namespace ac::ref {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

class Session {
 public:
  Session(const ChopsticksAgentOptions& o, std::shared_ptr<net::WsClient> c, std::ostream& log) : o_(o), c_(std::move(c)), log_(log) {}

  void hello() {
    Json h = {{"type", "hello"}, {"protocolVersion", o_.protocol_version}, {"agentId", o_.agent_id}, {"botUserId", nullptr},
              {"tag", "ReferenceAgent#0001"}, {"ready", true}, {"guildIds", o_.guild_ids}, {"poolId", o_.pool_id}};
    if (o_.omit_version) h.erase("protocolVersion");
    send(h);
  }
  void guilds() { send({{"type", "guilds"}, {"guildIds", o_.guild_ids}}); }

  // A string member, or the fallback when it is absent or not a string. (nlohmann's value()
  // throws on a member of another type; a controller's frame must never take the agent down:
  // `agentconform fuzz --serve` found exactly that.)
  static std::string str(const Json& j, const char* key, const std::string& fallback) {
    if (!j.is_object()) return fallback;
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
  }

  // Handles one controller message.
  void handle(const Json& m) {
    const std::string type = str(m, "type", "");
    if (type == "error") {
      log_ << "controller error: " << str(m, "error", m.contains("error") ? m["error"].dump() : "") << "\n";
      return;
    }
    if (type != "req" || !m.contains("id") || !m["id"].is_string()) return;  // nothing else is addressed to an agent
    if (o_.never_respond) return;
    const std::string id = m["id"].get<std::string>();
    const std::string op = str(m, "op", "");
    const Json data = m.contains("data") ? m["data"] : Json::object();
    Json resp = {{"type", "resp"}, {"id", id}, {"ok", true}};
    const std::string guild = str(data, "guildId", "0");
    if (op == "play") {
      const std::string channel = str(data, "voiceChannelId", "0");
      if (sessions_.count(guild) == 0) {
        sessions_[guild] = channel;
        send({{"type", "event"}, {"event", "add"}, {"agentId", o_.agent_id}, {"guildId", guild}, {"voiceChannelId", channel},
              {"channelId", channel}, {"kind", "music"}, {"ok", true}});
      }
      const std::string query = str(data, "query", "unknown");
      resp["data"] = {{"track", {{"title", query}, {"author", "agentconform"}, {"duration", 213000}}}, {"action", "playing"}};
    } else if (op == "stop") {
      release(guild, "STOPPED");
      resp["data"] = {{"action", "stopped"}};
    } else if (op == "pause" || op == "resume" || op == "skip") {
      resp["data"] = {{"action", op == "pause" ? "paused" : op == "resume" ? "resumed" : "skipped"}};
    } else if (op == "queue") {
      resp["data"] = {{"tracks", Json::array()}};
    } else if (op == "search") {
      resp["data"] = {{"results", Json::array()}};
    } else if (op == "status") {
      resp["data"] = {{"ready", true}, {"sessions", sessions_.size()}};
    } else {
      resp["ok"] = false;
      resp["error"] = "Unknown operation: " + op;
    }
    send(resp);
  }

  // Graceful disconnect: event released for every voice session, then close 1000.
  void leave() {
    while (!sessions_.empty()) release(sessions_.begin()->first, "SHUTDOWN");
    c_->close(1000, "agent shutting down");
  }

 private:
  void release(const std::string& guild, const std::string& reason) {
    auto it = sessions_.find(guild);
    if (it == sessions_.end()) return;
    send({{"type", "event"}, {"event", "released"}, {"agentId", o_.agent_id}, {"guildId", guild}, {"voiceChannelId", it->second},
          {"reason", reason}, {"kind", "music"}});
    sessions_.erase(it);
  }
  void send(const Json& m) { c_->send_text(m.dump()); }

  const ChopsticksAgentOptions& o_;
  std::shared_ptr<net::WsClient> c_;
  std::ostream& log_;
  std::map<std::string, std::string> sessions_;  // guildId -> voiceChannelId
};

}  // namespace

int run_chopsticks_agent(const ChopsticksAgentOptions& o, const std::atomic<bool>& stop, std::ostream& log) {
  net::Runtime runtime(1);
  bool ever_connected = false;
  run_reconnecting(o.max_connections, o.reconnect_delay, stop, [&] {
    auto client = connect_or_log(runtime, o.url, log);
    if (!client) return Attempt::failed;
    ever_connected = true;
    Session session(o, client, log);
    session.hello();
    session.guilds();
    auto next_beat = Clock::now() + o.heartbeat;
    return serve_session(*client, {.frame_source = "controller",
                                   .on_text = json_objects_to([&](const Json& m) { session.handle(m); }),
                                   .wait = [&] {
                                     auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_beat - Clock::now());
                                     return std::min(std::max(wait, std::chrono::milliseconds(0)), std::chrono::milliseconds(100));
                                   },
                                   .tick = [&] {
                                     if (Clock::now() < next_beat) return;
                                     session.hello();
                                     session.guilds();
                                     next_beat = Clock::now() + o.heartbeat;
                                   },
                                   .farewell = [&] { session.leave(); }},
                        stop, log);
  });
  return ever_connected ? 0 : 3;
}

ReferenceAgent chopsticks_reference_agent() {
  ReferenceAgent a;
  a.protocol = "chopsticks";
  a.path = "/chopsticks/ws";
  a.misbehaviours = {{"never-respond", "ignores every req (no resp)", {"CHOP-LC-101", "CHOP-ERR-101"}},
                     {"omit-version", "sends hello without protocolVersion", {"CHOP-HS-101", "CHOP-VER-102"}}};
  a.run = [](const AgentRun& r, const std::atomic<bool>& stop, std::ostream& log) {
    if (!r.settings.empty()) {
      log << "agent: the chopsticks agent takes no --set (got " << r.settings.begin()->first << ")\n";
      return 2;
    }
    ChopsticksAgentOptions o;
    o.url = r.url;
    if (!r.agent_id.empty()) o.agent_id = r.agent_id;
    if (!r.protocol_version.empty()) o.protocol_version = r.protocol_version;
    o.heartbeat = std::chrono::milliseconds(r.heartbeat_ms);
    o.max_connections = r.max_connections;
    for (const auto& m : r.misbehave) {
      if (m == "never-respond") o.never_respond = true;
      if (m == "omit-version") o.omit_version = true;
    }
    return run_chopsticks_agent(o, stop, log);
  };
  return a;
}

}  // namespace ac::ref

// Agora relay driver (agora-relay-streaming.md). Agents connect to the relay's WebSocket and are
// registered as the target's binding says (reading AG-1); Agora frames have no envelope, so a
// message template is sent as written (plus the step's remove/patch): cases spell out `to`,
// `stream_id` and `stream` because those are what they test.
//
// Endpoint: "ws" (default /agora/ws; the path of a ws:// --target).
// Settings (target.json "settings"):
//   binding            "query" (default): the agent id is the WebSocket URL's query parameter;
//                      "first-frame": after the upgrade the driver sends `register_frame` and waits
//                      for a frame matching `register_ack`
//   query_parameter    the query parameter's name (default "agent_id")
//   register_frame     first-frame template; a string "${id}" in it becomes the agent id
//                      (default {"type": "register", "agent_id": "${id}"})
//   register_ack       pattern of the relay's answer to it (default {"type": "registered"}); any
//                      other frame (e.g. an AGENT_ID_TAKEN error) is left for the case's next expect
//   connect_settle_ms  pause after each connect, for relays that bind only after the handshake
//                      answer was sent (default 0; the reference binds before it answers)
//   max_frame_bytes    the relay's frame size limit (default 1048576)
//   error_codes        {AG-6 code: the relay's code or [codes]} (default: each code is itself)
// Connect overrides: "agent_id" registers under that id instead of the agent's own; "auth":
// "none" connects without any agent id (no query parameter, no register frame; Agora has no
// credentials, so the other auth values connect normally); "query", "headers", "path" as for
// every driver.
// Variables: ${a.id}; ${code.unknown_recipient}, ${code.invalid_frame}, ... (the codes of reading
// AG-6 as the relay spells them: a string, or {"$one_of": [...]} for a list in error_codes);
// ${oversize_text}: a string of max_frame_bytes + 1 characters 'x' (defined
// only in cases that mention it, to keep other cases light).
// Triggers: none (the spec gives a relay no API; everything is observed on the WebSocket).
// Client-under-test mode (agentconform serve --protocol agora): the scripted relay listens at
// /agora/ws; the agent under test connects there (any query) and the case judges the frames it
// sends. The spec gives a relay no way to make an agent send, so the client (or the shim started
// with --command) sends what AGENTCONFORM_CASE asks for, as each agent case's description says.
#include <cctype>
#include <deque>
#include <mutex>
#include <thread>

#include "harness/engine/drivers/common.hpp"
#include "harness/engine/matcher.hpp"
#include "harness/json/strict_reader.hpp"

namespace ac::engine {
namespace {

// A channel that gives back frames the driver read during the connect before reading more.
class PushbackChannel final : public Channel {
 public:
  PushbackChannel(std::shared_ptr<Channel> inner, std::deque<Incoming> pending)
      : inner_(std::move(inner)), pending_(std::move(pending)) {}
  std::string transport() const override { return inner_->transport(); }
  void send_text(std::string_view text) override { inner_->send_text(text); }
  bool send_binary(std::string_view bytes) override { return inner_->send_binary(bytes); }
  bool send_frame(const ws::FrameSpec& frame) override { return inner_->send_frame(frame); }
  std::optional<Incoming> next(std::chrono::milliseconds timeout) override {
    {
      std::lock_guard lock(mutex_);
      if (!pending_.empty()) {
        Incoming in = std::move(pending_.front());
        pending_.pop_front();
        return in;
      }
    }
    return inner_->next(timeout);
  }
  void close(std::uint16_t code, std::string_view reason) override { inner_->close(code, reason); }
  void abort() override { inner_->abort(); }
  bool is_open() const override { return inner_->is_open(); }

 private:
  std::shared_ptr<Channel> inner_;
  std::mutex mutex_;
  std::deque<Incoming> pending_;
};

Json replace_id(Json templ, const std::string& id) {
  if (templ.is_string() && templ.get<std::string>() == "${id}") return id;
  if (templ.is_object() || templ.is_array()) {
    for (auto& v : templ) v = replace_id(std::move(v), id);
  }
  return templ;
}

Json setting_json(const TargetConfig& t, const char* key, Json fallback) {
  auto it = t.settings.find(key);
  return it == t.settings.end() ? fallback : *it;
}

std::int64_t setting_int(const TargetConfig& t, const char* key, std::int64_t fallback) {
  auto it = t.settings.find(key);
  return it != t.settings.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

class AgoraDriver final : public Driver {
 public:
  proto::ProtocolId protocol() const override { return proto::ProtocolId::agora; }
  std::string primary_path() const override { return "ws"; }
  std::string admission_requirement() const override { return "AGORA-register-bind"; }

  std::vector<std::string> hub_ws_paths() const override { return {"/agora/ws"}; }

  void init_agent(AgentSession& agent, CaseEnv& env) const override {
    (void)agent;
    set_code_variables(env);
    if (env.vars.has("oversize_text") || env.kase.steps.dump().find("${oversize_text}") == std::string::npos) return;
    const auto limit = setting_int(env.target, "max_frame_bytes", 1024 * 1024);
    env.vars.set("oversize_text", std::string(static_cast<std::size_t>(std::max<std::int64_t>(limit, 0)) + 1, 'x'));
  }

  ConnectResult connect(AgentSession& agent, const Json& step, CaseEnv& env) const override {
    const bool anonymous = step.value("auth", std::string("valid")) == "none";
    const std::string id = step.contains("agent_id") && step["agent_id"].is_string() ? step["agent_id"].get<std::string>() : agent.id;
    const bool first_frame = env.target.setting("binding", "query") == "first-frame";
    std::map<std::string, std::string> query;
    if (!anonymous && !first_frame) query[env.target.setting("query_parameter", "agent_id")] = id;
    ConnectResult r = connect_ws(agent, step, env, "ws", std::move(query));
    if (r.outcome != ConnectResult::Outcome::connected) return r;
    if (first_frame && !anonymous) register_by_frame(agent, env, id);
    if (const auto settle = setting_int(env.target, "connect_settle_ms", 0); settle > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(settle));
    }
    return r;
  }

  Expected<Json, std::string> fill(Json m, AgentSession& agent, const Json& step, CaseEnv& env) const override {
    (void)agent;
    return apply_edits(std::move(m), step, env.vars);
  }

 private:
  // ${code.x} (x: the code in lower case) for each code of reading AG-6 a case checks: the relay's own spelling from
  // settings.error_codes (validated against target-settings.json before the run), else X itself.
  static void set_code_variables(CaseEnv& env) {
    static const char* const kCodes[] = {"UNKNOWN_RECIPIENT", "INVALID_FRAME", "AGENT_ID_TAKEN",
                                         "UNKNOWN_STREAM",    "STREAM_ENDED",  "STREAM_ID_IN_USE"};
    if (env.vars.has("code.invalid_frame")) return;
    const Json map = setting_json(env.target, "error_codes", Json::object());
    for (const char* code : kCodes) {
      Json value = code;
      if (map.is_object() && map.contains(code)) {
        const Json& given = map[code];
        if (given.is_string()) value = given;
        else if (given.is_array() && given.size() == 1) value = given[0];
        else if (given.is_array() && !given.empty()) value = Json{{"$one_of", given}};
      }
      std::string name = "code.";
      for (const char* c = code; *c != '\0'; ++c) name += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
      env.vars.set(name, value);
    }
  }

  // First-frame binding: send the register frame and consume its acknowledgement; whatever else
  // arrives first (an error, a close) is kept for the case to see.
  void register_by_frame(AgentSession& agent, CaseEnv& env, const std::string& id) const {
    const Json frame = replace_id(setting_json(env.target, "register_frame", Json{{"type", "register"}, {"agent_id", "${id}"}}), id);
    const Json ack = setting_json(env.target, "register_ack", Json{{"type", "registered"}});
    agent.channel->send_text(frame.dump());
    std::deque<Incoming> kept;
    if (auto in = agent.channel->next(env.step_timeout)) {
      std::optional<Json> parsed;
      if (in->kind == ws::Event::Kind::text) {
        if (auto j = json::parse_strict(in->data)) parsed = std::move(*j);
      }
      if (!parsed || match(ack, *parsed)) kept.push_back(std::move(*in));
    }
    if (!kept.empty()) agent.channel = std::make_shared<PushbackChannel>(agent.channel, std::move(kept));
  }
};

}  // namespace

const Driver& agora_driver() {
  static const AgoraDriver d;
  return d;
}

}  // namespace ac::engine

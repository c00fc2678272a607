#include "reference/agents/alp_agent.hpp"

#include "reference/agents/agents.hpp"
#include "reference/agents/reconnect.hpp"

#include <cstdlib>
#include <deque>
#include <optional>
#include <ostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness/json/strict_reader.hpp"
#include "harness/net/client.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "harness/util/percent_encode.hpp"

namespace ac::ref {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kCapability = "org.agentconform.reference.echo";
constexpr const char* kCapabilityVersion = "1.0.0";
constexpr std::size_t kMaxPending = 256;  // final responses waiting; past it, requests get an error

// A string member, or the fallback when it is absent or not a string: a lobby's message must
// never take the agent down (nlohmann's value() throws on a member of another type).
std::string str(const Json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

Json error_object(const std::string& code, const std::string& message) { return {{"code", code}, {"message", message}}; }

// What the HTTP registration gave (§6 step 1): the token, the lobby's id and the agent's id (the
// lobby may provision another than the desired one).
struct Registration {
  std::string token;
  std::string lobby_id;
  std::string agent_id;
};

// POST /api/v1/register. The API key goes both in the body and in X-API-Key (reading ALP-15: where
// a lobby reads it is its choice). nullopt with `reached` telling whether any answer came.
std::optional<Registration> register_agent(net::Runtime& runtime, const AlpAgentOptions& o, bool& reached, std::ostream& log) {
  net::HttpCall call;
  call.method = "POST";
  call.url = o.register_url;
  Json body = {{"agent_id", o.agent_id}, {"agent_type", o.agent_type}, {"api_key", o.api_key}};
  if (o.register_without_type) body.erase("agent_type");
  call.body = body.dump();
  call.headers.emplace("Content-Type", "application/json");
  call.headers.emplace("X-API-Key", o.api_key);
  call.max_response_bytes = 64 * 1024;
  auto r = net::http_request(runtime, call);
  if (!r) {
    log << "cannot register at " << o.register_url << ": " << r.error().describe() << "\n";
    return std::nullopt;
  }
  reached = true;
  if (r->status != 200 && r->status != 201) {
    log << "registration refused: HTTP " << r->status << " " << r->body.substr(0, 200) << "\n";
    return std::nullopt;
  }
  auto j = json::parse_strict(r->body);
  if (!j || !j->is_object()) {
    log << "registration answer is not a JSON object\n";
    return std::nullopt;
  }
  Registration reg{str(*j, "auth_token"), str(*j, "lobby_id"), str(*j, "agent_id", o.agent_id)};
  if (reg.token.empty() || reg.lobby_id.empty() || reg.agent_id.empty()) {
    log << "registration answer lacks auth_token or lobby_id (strings)\n";
    return std::nullopt;
  }
  return reg;
}

class Session {
 public:
  Session(const AlpAgentOptions& o, const Registration& reg, std::shared_ptr<net::WsClient> c, std::ostream& log)
      : o_(o), reg_(reg), c_(std::move(c)), log_(log) {}

  // §6 step 4, §7.1.1: capabilities for this session, to the lobby, first thing.
  void register_client() {
    Json capability = {{"name", kCapability},
                       {"capability_version", kCapabilityVersion},
                       {"description", "echoes its input_data as output_data.echo"},
                       {"input_schema", {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}}},
                       {"output_schema", {{"type", "object"}, {"properties", {{"echo", {{"type", "object"}}}}}}},
                       {"keywords", {"echo", "reference"}}};
    send(envelope("REGISTER_CLIENT", o_.ignore_lobby_id ? "lobby" : reg_.lobby_id,
                  {{"capabilities", Json::array({capability})}, {"agent_version", "1.0.0"}, {"sdk_version", "agentconform-reference-0.2.0"}}));
  }

  // One text frame from the lobby.
  void handle_text(const std::string& text) {
    auto m = json::parse_strict(text);
    if (!m || !m->is_object()) {
      protocol_error("MESSAGE_MALFORMED", "not a JSON object", "");
      return;
    }
    handle(*m);
  }

  // Due final responses and the idle PING.
  void tick() {
    const auto now = Clock::now();
    while (!pending_.empty() && pending_.front().first <= now) {
      send(pending_.front().second);
      pending_.pop_front();
    }
    if (now - last_sent_ >= o_.heartbeat) send(envelope("PING", reg_.lobby_id, {{"nonce", proto::typed::new_uuid_v4()}}));
  }

  // §6 step 7: UNREGISTER_CLIENT, then close.
  void leave() {
    send(envelope("UNREGISTER_CLIENT", reg_.lobby_id, {{"reason", "shutting_down"}}));
    c_->close(1000, "agent shutting down");
  }

 private:
  void handle(const Json& m) {
    const std::string type = str(m, "message_type");
    const std::string id = str(m, "message_id");
    if (type.empty()) {
      protocol_error("MISSING_REQUIRED_FIELD", "message_type is missing or not a string", id);
      return;
    }
    if (!m.contains("payload") || !m["payload"].is_object()) {
      if (type != "PROTOCOL_ERROR") protocol_error("MESSAGE_MALFORMED", "payload is missing or not an object", id);
      return;
    }
    const Json& payload = m["payload"];
    if (type == "PING") {
      if (o_.no_pong) return;
      Json pong = Json::object();
      if (payload.contains("nonce") && !o_.pong_without_nonce) pong["nonce"] = payload["nonce"];
      Json out = envelope("PONG", str(m, "sender_id", reg_.lobby_id), pong);
      if (m.contains("conversation_id") && m["conversation_id"].is_string()) out["conversation_id"] = m["conversation_id"];
      send(out);
    } else if (type == "INVOKE_CAPABILITY_REQUEST") {
      invoke(m, payload);
    } else if (type == "REGISTER_CLIENT_ACK") {
      if (str(payload, "status") != "success") log_ << "REGISTER_CLIENT refused: " << payload.dump().substr(0, 200) << "\n";
    } else if (type == "PROTOCOL_ERROR") {  // never answered: two agents must not trade errors forever
      log_ << "lobby reports: " << payload.dump().substr(0, 200) << "\n";
    } else if (type == "PONG" || type == "DIRECT_MESSAGE" || type == "LOBBY_BROADCAST" || type == "CAPABILITIES_FOUND" ||
               type == "INVOKE_CAPABILITY_RESPONSE") {
      // Nothing to do: the agent asks nothing and needs no content.
    } else {
      protocol_error("INVALID_MESSAGE_TYPE", "the agent does not take " + type.substr(0, 64), id);
    }
  }

  // §7.3.2/§7.3.3 and §9 ("Agents MUST validate requests they receive"): a request that does not
  // fit the capability gets an error response; a valid one pending_async, then success, both
  // with the request's conversation_id (§7.3.3 "using the same conversation_id").
  void invoke(const Json& m, const Json& payload) {
    const std::string rid = str(m, "message_id");
    const std::string from = str(m, "sender_id");
    if (rid.empty() || from.empty()) {
      protocol_error("MISSING_REQUIRED_FIELD", "INVOKE_CAPABILITY_REQUEST needs message_id and sender_id (strings)", rid);
      return;
    }
    std::optional<std::string> conversation;
    if (m.contains("conversation_id") && m["conversation_id"].is_string()) conversation = m["conversation_id"].get<std::string>();
    if (o_.new_conversation_id) conversation = proto::typed::new_uuid_v4();
    auto respond = [&](Json body) {
      body["request_message_id"] = rid;
      Json out = envelope("INVOKE_CAPABILITY_RESPONSE", from, std::move(body));
      if (conversation) out["conversation_id"] = *conversation;
      return out;
    };
    auto error = [&](const std::string& code, const std::string& message) {
      send(respond({{"status", "error"}, {"error_details", error_object(code, message)}}));
    };
    const std::string name = str(payload, "capability_name");
    if (name.empty()) return error("MISSING_REQUIRED_FIELD", "payload.capability_name is missing or not a string");
    if (name != kCapability) return error("CAPABILITY_NOT_FOUND", "this agent offers only " + std::string(kCapability));
    if (payload.contains("capability_version") && payload["capability_version"] != kCapabilityVersion)
      return error("CAPABILITY_VERSION_MISMATCH", "this agent offers version " + std::string(kCapabilityVersion));
    const bool has_input = payload.contains("input_data");
    const Json input = has_input ? payload["input_data"] : Json::object();
    if (!o_.no_input_validation) {
      if (!has_input || !input.is_object()) return error("INVALID_PAYLOAD_SCHEMA", "input_data must be an object (input_schema)");
      if (input.contains("text") && !input["text"].is_string()) return error("INVALID_PAYLOAD_SCHEMA", "input_data.text must be a string");
    }
    if (pending_.size() >= kMaxPending) return error("RATE_LIMIT_EXCEEDED", "too many invocations in progress");
    send(respond({{"status", "pending_async"}}));
    if (o_.never_complete) return;
    pending_.emplace_back(Clock::now() + o_.async_delay, respond({{"status", "success"}, {"output_data", {{"echo", input}}}}));
  }

  void protocol_error(const std::string& code, const std::string& message, const std::string& offending) {
    Json payload = {{"error", error_object(code, message)}};
    if (!offending.empty()) payload["offending_message_id"] = offending;
    send(envelope("PROTOCOL_ERROR", reg_.lobby_id, payload));
  }

  Json envelope(const std::string& type, const std::string& receiver, Json payload) const {
    return {{"message_id", proto::typed::new_uuid_v4()}, {"protocol_version", o_.protocol_version}, {"sender_id", reg_.agent_id},
            {"receiver_id", receiver}, {"message_type", type}, {"payload", std::move(payload)}, {"timestamp", proto::typed::utc_now()}};
  }
  void send(const Json& m) {
    c_->send_text(m.dump(-1, ' ', false, Json::error_handler_t::replace));
    last_sent_ = Clock::now();
  }

  const AlpAgentOptions& o_;
  const Registration& reg_;
  std::shared_ptr<net::WsClient> c_;
  std::ostream& log_;
  std::deque<std::pair<Clock::time_point, Json>> pending_;
  Clock::time_point last_sent_ = Clock::now();
};

}  // namespace

int run_alp_agent(const AlpAgentOptions& o, const std::atomic<bool>& stop, std::ostream& log) {
  net::Runtime runtime(1);
  bool reached = false;
  std::optional<Registration> reg;
  std::string first_token;
  // §6 step 8: reconnect with the same token while it is accepted.
  run_reconnecting(o.max_connections, o.reconnect_delay, stop, [&] {
    if (!reg) {
      reg = register_agent(runtime, o, reached, log);
      if (!reg) return Attempt::failed;
      if (first_token.empty()) first_token = reg->token;
      if (o.reuse_old_token) reg->token = first_token;
    }
    // §4.2, §6 step 2: wss://…/ws/connect?token=<auth_token>&agent_id=<agent_id>
    std::string url = o.url + "?token=" + percent_encode(reg->token) + "&agent_id=" + percent_encode(reg->agent_id);
    net::WsConnectOptions wo;
    if (o.token_in_header) {
      url = o.url + "?agent_id=" + percent_encode(reg->agent_id);
      wo.headers.emplace("Authorization", "Bearer " + reg->token);
    }
    auto client = net::WsClient::connect(runtime, url, wo);
    if (!client) {
      const auto& e = client.error();
      if (e.kind == net::ClientError::Kind::refused) {
        reached = true;
        log << "the lobby refused the connection: HTTP " << e.status << " " << e.body.substr(0, 200) << "\n";
        // §6 step 8: "If auth_token is rejected, the agent must re-perform the full HTTP registration."
        if ((e.status == 401 || e.status == 403) && !o.no_reregister) reg.reset();
      } else {
        // The message may quote the URL: never the token in clear.
        std::string why = e.describe();
        for (auto at = why.find(reg->token); !reg->token.empty() && at != std::string::npos; at = why.find(reg->token, at + 7))
          why.replace(at, reg->token.size(), "<token>");
        log << "cannot connect to " << o.url << ": " << why << "\n";
      }
      return Attempt::failed;
    }
    reached = true;
    Session session(o, *reg, *client, log);
    session.register_client();
    return serve_session(**client, {.frame_source = "lobby",
                                    .on_text = [&](const std::string& text) { session.handle_text(text); },
                                    .wait = [] { return std::chrono::milliseconds(20); },
                                    .tick = [&] { session.tick(); },
                                    .farewell = [&] { session.leave(); }},
                         stop, log);
  });
  return reached ? 0 : 3;
}

ReferenceAgent alp_reference_agent() {
  ReferenceAgent a;
  a.protocol = "alp";
  a.path = "/ws/connect";
  a.misbehaviours = {
      {"register-without-type", "registers over HTTP without agent_type"},
      {"no-reregister", "after the lobby refuses its token at the upgrade, retries the WebSocket with the same token"},
      {"reuse-old-token", "registers again after a refused token but connects with the first token"},
      {"token-in-header", "sends its token in an Authorization header instead of the URI's token parameter"},
      {"ignore-lobby-id", "sends REGISTER_CLIENT to \"lobby\" instead of the lobby_id the registration returned"},
      {"no-pong", "never answers PING"},
      {"pong-without-nonce", "answers PING with a PONG that does not echo the nonce"},
      {"no-input-validation", "executes an invocation whose input_data is not an object (answers success)"},
      {"never-complete", "answers an invocation pending_async and never sends the final response"},
      {"new-conversation-id", "answers an invocation with a fresh conversation_id instead of the request's"},
  };
  a.run = [](const AgentRun& r, const std::atomic<bool>& stop, std::ostream& log) {
    AlpAgentOptions o;
    for (const auto& [key, value] : r.settings) {
      if (key == "api_key") {
        o.api_key = value;
      } else if (key == "agent_type") {
        o.agent_type = value;
      } else if (key == "register_url") {
        o.register_url = value;
      } else {
        log << "agent: unknown --set " << key << " for the alp agent (it reads api_key, agent_type, register_url)\n";
        return 2;
      }
      if (value.empty()) {
        log << "agent: --set " << key << " must not be empty\n";
        return 2;
      }
    }
    o.url = r.url;
    // The registration endpoint: --set register_url, else $AGENTCONFORM_HTTP (set by serve), else
    // the WebSocket URL's host with http(s).
    if (o.register_url.empty()) {
      if (const char* http = std::getenv("AGENTCONFORM_HTTP"); http != nullptr && *http != '\0') {
        o.register_url = std::string(http) + "/api/v1/register";
      } else {
        const auto scheme_end = o.url.find("://");
        if (scheme_end == std::string::npos) {
          log << "agent: --url must be ws:// or wss://, got '" << o.url << "'\n";
          return 2;
        }
        const std::string scheme = o.url.substr(0, scheme_end) == "wss" ? "https" : "http";
        const auto host_end = o.url.find('/', scheme_end + 3);
        o.register_url = scheme + "://" + o.url.substr(scheme_end + 3, host_end == std::string::npos ? std::string::npos : host_end - scheme_end - 3) +
                         "/api/v1/register";
      }
    }
    if (!r.agent_id.empty()) o.agent_id = r.agent_id;
    if (!r.protocol_version.empty()) o.protocol_version = r.protocol_version;
    o.heartbeat = std::chrono::milliseconds(r.heartbeat_ms);
    o.max_connections = r.max_connections;
    for (const auto& m : r.misbehave) {
      if (m == "register-without-type") o.register_without_type = true;
      if (m == "no-reregister") o.no_reregister = true;
      if (m == "reuse-old-token") o.reuse_old_token = true;
      if (m == "token-in-header") o.token_in_header = true;
      if (m == "ignore-lobby-id") o.ignore_lobby_id = true;
      if (m == "no-pong") o.no_pong = true;
      if (m == "pong-without-nonce") o.pong_without_nonce = true;
      if (m == "no-input-validation") o.no_input_validation = true;
      if (m == "never-complete") o.never_complete = true;
      if (m == "new-conversation-id") o.new_conversation_id = true;
    }
    return run_alp_agent(o, stop, log);
  };
  return a;
}

}  // namespace ac::ref

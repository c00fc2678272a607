// The reference A2ACP agent (a2acp_agent.hpp): one WebSocket session with the broker, tokens from
// the auth service per audience, and the initiator and responder sides of the handshake and of
// routing. Every frame from the broker is untrusted: members of the wrong type are skipped, never
// thrown on (`agentconform fuzz --serve` plays a hostile broker against the agents).
#include "reference/agents/a2acp_agent.hpp"

#include <cstdlib>
#include <ctime>
#include <map>
#include <optional>
#include <ostream>
#include <thread>

#include "harness/crypto/base64.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/net/client.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "harness/util/percent_encode.hpp"
#include "reference/agents/agents.hpp"
#include "reference/agents/reconnect.hpp"

namespace ac::ref {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::int64_t now_s() { return static_cast<std::int64_t>(std::time(nullptr)); }

std::string str(const Json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

const Json* obj(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? &*it : nullptr;
}

// The token's exp: from its claims, else from the response's expires_at (RFC 3339, UTC).
std::optional<std::int64_t> token_exp(const std::string& token, const std::string& expires_at) {
  const auto d1 = token.find('.'), d2 = token.rfind('.');
  if (d1 != std::string::npos && d2 != d1) {
    if (auto bytes = crypto::base64url_decode(std::string_view(token).substr(d1 + 1, d2 - d1 - 1))) {
      if (auto c = json::parse_strict(*bytes); c && c->is_object() && c->contains("exp") && (*c)["exp"].is_number_integer()) {
        return (*c)["exp"].get<std::int64_t>();
      }
    }
  }
  std::tm tm{};
  if (expires_at.size() >= 19 && strptime(expires_at.substr(0, 19).c_str(), "%Y-%m-%dT%H:%M:%S", &tm) != nullptr) {
    return static_cast<std::int64_t>(timegm(&tm));
  }
  return std::nullopt;
}

struct Token {
  std::string value;
  std::int64_t iat = 0, exp = 0;
  // Renew at exp, or a quarter of the lifetime before it (at most 30 s before).
  bool fresh(std::int64_t now) const { return now + std::min<std::int64_t>(30, (exp - iat) / 4) < exp; }
};

// A message to resend later (after an error with retry_after > 0).
struct Resend {
  Clock::time_point at;
  Json message;  // without security: the token is taken when it is sent
};

constexpr int kMaxRetries = 3;  // resends per session, whatever the errors say

class Session {
 public:
  Session(const A2acpAgentOptions& o, net::Runtime& rt, std::ostream& log) : o_(o), rt_(rt), log_(log) {}

  // A token for `audience` (cached until it expires). nullopt, logged, when the service gives none.
  std::optional<std::string> token_for(const std::string& aud) {
    if (auto it = tokens_.find(aud); it != tokens_.end() && (o_.reuse_expired_token || it->second.fresh(now_s()))) return it->second.value;
    Json body = {{"agent_id", o_.agent_id}, {"target_agent_id", aud}, {"requested_capabilities", o_.capabilities}, {"domain", o_.domain}};
    if (!o_.api_key.empty()) body["api_key"] = o_.api_key;
    net::HttpCall call;
    call.method = "POST";
    call.url = o_.http_base + o_.token_path;
    call.headers = {{"Content-Type", "application/json"}};
    call.body = body.dump();
    call.timeout = std::chrono::milliseconds(5000);
    auto r = net::http_request(rt_, call);
    if (!r) {
      log_ << "token request for " << aud << " failed: " << r.error().describe() << "\n";
      return std::nullopt;
    }
    auto j = json::parse_strict(r->body);
    if (r->status < 200 || r->status > 299 || !j || str(*j, "token").empty()) {
      log_ << "the auth service gave no token for " << aud << ": HTTP " << r->status << " " << r->body.substr(0, 200) << "\n";
      return std::nullopt;
    }
    Token t;
    t.value = str(*j, "token");
    t.iat = now_s();
    t.exp = token_exp(t.value, str(*j, "expires_at")).value_or(t.iat + 60);
    tokens_[aud] = t;
    return t.value;
  }

  // Tokens before attaching: the broker's, then the peer's (reading A2-14: one per audience).
  bool prefetch() {
    if (!token_for(o_.broker_id)) return false;
    if (!o_.peer.empty() && !token_for(o_.peer)) return false;
    return true;
  }

  std::string attach_url() {
    const auto t = tokens_.find(o_.broker_id);
    std::string url = o_.url + (o_.url.find('?') == std::string::npos ? "?" : "&") + "agent_id=" + percent_encode(o_.agent_id);
    if (t != tokens_.end()) url += "&token=" + percent_encode(t->second.value);
    return url;
  }

  void set_client(std::shared_ptr<net::WsClient> c) { c_ = std::move(c); }

  Json me() const { return {{"agent_id", o_.agent_id}, {"domain", o_.domain}, {"version", o_.version}}; }
  Json broker() const { return {{"agent_id", o_.broker_id}, {"domain", o_.broker_domain}, {"version", o_.broker_version}}; }
  Json peer() const { return {{"agent_id", o_.peer}, {"domain", o_.peer_domain}, {"version", o_.peer_version}}; }

  Json envelope(const Json& to, const std::string& type, const std::string& intent, Json payload) const {
    Json m = {{"protocol_version", o_.protocol_version}, {"message_id", proto::typed::new_uuid_v4()},
              {"timestamp", proto::typed::utc_now()},     {"source_agent", me()},
              {"target_agent", to},                       {"message_type", type}};
    if (!intent.empty()) m["intent"] = intent;
    m["payload"] = std::move(payload);
    return m;
  }

  // Sends with a token for the target (All messages MUST include a JWT authentication token).
  void send(Json m) {
    const std::string to = str(m["target_agent"], "agent_id");
    auto token = token_for(o_.wrong_audience_token ? o_.broker_id : to);
    if (!token) {
      log_ << "not sent (no token for " << to << "): " << str(m, "intent", str(m, "message_type")) << "\n";
      return;
    }
    m["security"] = {{"auth_token", *token}, {"encryption", "none"}};
    c_->send_text(m.dump());
  }

  void initiate() {
    if (o_.peer.empty()) return;
    handshake_ = envelope(broker(), "request", "initiate_handshake",
                          {{"target_agent_id", o_.peer}, {"requested_intent", o_.intent}, {"correlation_id", proto::typed::new_uuid_v4()}});
    awaiting_handshake_ = true;
    send(handshake_);
  }

  void handle(const Json& m) {
    const std::string type = str(m, "message_type");
    const std::string intent = str(m, "intent");
    const Json payload = m.contains("payload") && m["payload"].is_object() ? m["payload"] : Json::object();
    const Json from = obj(m, "source_agent") != nullptr ? m["source_agent"] : Json::object();
    if (type == "response" && intent == "initiate_handshake") return handshake_result(payload);
    if (type == "error") return error(m, payload);
    if (type == "request" && intent == "accept_handshake") return decide(from, payload);
    if (type == "event" && intent == "contract_established") {
      if (const Json* c = obj(payload, "contract"); c != nullptr && !str(*c, "contract_id").empty()) {
        contracts_[str(*c, "contract_id")] = str(payload, "collaboration_id");
      }
      return;
    }
    if (type == "request") return serve_request(m, from, intent, payload);
    if (type == "response") {
      log_ << "response from " << str(from, "agent_id") << " under contract " << str(payload, "contract_id") << "\n";
      awaiting_response_ = false;
      return;
    }
  }

  // Resends due (after retry_after).
  void tick() {
    for (auto it = resends_.begin(); it != resends_.end();) {
      if (Clock::now() < it->at) {
        ++it;
        continue;
      }
      Json m = it->message;
      m["message_id"] = proto::typed::new_uuid_v4();
      m["timestamp"] = proto::typed::utc_now();
      it = resends_.erase(it);
      if (str(m, "intent") == "initiate_handshake") awaiting_handshake_ = true;
      else awaiting_response_ = true;
      send(std::move(m));
    }
  }

 private:
  void handshake_result(const Json& payload) {
    if (!awaiting_handshake_) return;
    awaiting_handshake_ = false;
    const Json* contract = obj(payload, "contract");
    const bool rejected = (payload.contains("accepted") && payload["accepted"] == false) || contract == nullptr ||
                          str(*contract, "contract_id").empty();
    if (rejected && !o_.ignore_contract_rejection) {
      log_ << "handshake with " << o_.peer << " rejected: " << str(payload, "reason", "no contract") << "\n";
      return;
    }
    const std::string contract_id = contract != nullptr ? str(*contract, "contract_id") : "";
    request_peer(contract_id, str(payload, "collaboration_id"));
  }

  void request_peer(const std::string& contract_id, const std::string& collaboration_id) {
    Json p = o_.input.is_object() ? o_.input : Json::object();
    const std::string used = o_.wrong_contract_id ? (collaboration_id.empty() ? "contract-" + proto::typed::new_uuid_v4() : collaboration_id) : contract_id;
    if (!used.empty()) p["contract_id"] = used;
    p["correlation_id"] = proto::typed::new_uuid_v4();
    request_ = envelope(peer(), "request", o_.intent, p);
    awaiting_response_ = true;
    send(request_);
  }

  void error(const Json& m, const Json& payload) {
    const Json* e = obj(payload, "error");
    const std::string code = e != nullptr ? str(*e, "code") : "";
    std::int64_t retry_after = 0;
    if (e != nullptr && e->contains("retry_after") && (*e)["retry_after"].is_number_integer()) retry_after = std::max<std::int64_t>(0, (*e)["retry_after"].get<std::int64_t>());
    log_ << "error " << code << " (retry_after " << retry_after << "): " << (e != nullptr ? str(*e, "message") : "") << "\n";
    // Which of its messages the error answers: the pending handshake, else the pending request.
    const bool for_handshake = awaiting_handshake_ && (str(m, "intent").empty() || str(m, "intent") == "initiate_handshake");
    const Json* original = for_handshake ? &handshake_ : awaiting_response_ ? &request_ : nullptr;
    if (original == nullptr) return;
    if (for_handshake) awaiting_handshake_ = false;
    else awaiting_response_ = false;
    if (retry_after == 0) {
      if (o_.ignore_contract_rejection && for_handshake) {
        const Json* details = e != nullptr ? obj(*e, "details") : nullptr;
        return request_peer("", details != nullptr ? str(*details, "collaboration_id") : "");
      }
      if (o_.retry_non_retryable && retries_ < kMaxRetries) {
        ++retries_;
        resends_.push_back({Clock::now(), *original});
      }
      return;  // 0 = don't retry
    }
    if (retries_ >= kMaxRetries) return;
    ++retries_;
    const auto delay = o_.ignore_retry_after ? std::chrono::milliseconds(0) : std::chrono::milliseconds(std::min<std::int64_t>(retry_after, 3600) * 1000);
    resends_.push_back({Clock::now() + delay, *original});
  }

  void decide(const Json& from, const Json& payload) {
    const std::string wanted = str(payload, "requested_intent");
    const bool accepted = wanted == o_.intent;
    Json p = {{"accepted", accepted}};
    if (o_.decision_not_boolean) p["accepted"] = accepted ? "true" : "false";
    if (!accepted) p["reason"] = "agent " + o_.agent_id + " does not serve intent \"" + wanted + "\"";
    for (const char* k : {"collaboration_id", "correlation_id"})
      if (!str(payload, k).empty()) p[k] = str(payload, k);
    send(envelope(from.is_object() && !str(from, "agent_id").empty() ? from : broker(), "response", "accept_handshake", p));
  }

  void serve_request(const Json& m, const Json& from, const std::string& intent, const Json& payload) {
    if (str(from, "agent_id").empty()) return;
    const std::string contract_id = str(payload, "contract_id");
    Json p;
    std::string type = "response";
    if (intent != o_.intent) {
      type = "error";
      p = {{"error", {{"code", "CAPABILITY_NOT_FOUND"}, {"message", "agent " + o_.agent_id + " does not serve intent \"" + intent + "\""}, {"retry_after", 0}}}};
    } else if (contract_id.empty()) {
      type = "error";
      p = {{"error", {{"code", "CONTRACT_VIOLATION"}, {"message", "a request without payload.contract_id"}, {"retry_after", 0}}}};
    } else {
      p = o_.output.is_object() ? o_.output : Json::object();
      if (!o_.omit_response_contract_id) p["contract_id"] = contract_id;
    }
    if (!str(payload, "correlation_id").empty()) {
      if (type == "error") p["error"]["correlation_id"] = str(payload, "correlation_id");
      else p["correlation_id"] = str(payload, "correlation_id");
    }
    (void)m;
    send(envelope(from, type, intent, p));
  }

  const A2acpAgentOptions& o_;
  net::Runtime& rt_;
  std::ostream& log_;
  std::shared_ptr<net::WsClient> c_;
  std::map<std::string, Token> tokens_;          // audience -> token
  std::map<std::string, std::string> contracts_;  // contract_id -> collaboration_id (as target)
  Json handshake_, request_;
  bool awaiting_handshake_ = false, awaiting_response_ = false;
  std::vector<Resend> resends_;
  int retries_ = 0;
};

}  // namespace

int run_a2acp_agent(const A2acpAgentOptions& o, const std::atomic<bool>& stop, std::ostream& log) {
  net::Runtime runtime(1);
  bool ever_connected = false;
  run_reconnecting(o.max_connections, o.reconnect_delay, stop, [&] {
    Session session(o, runtime, log);
    std::shared_ptr<net::WsClient> client;
    if (session.prefetch()) {
      auto c = net::WsClient::connect(runtime, session.attach_url(), {});
      if (c) client = *c;
      else log << "cannot attach to " << o.url << ": " << c.error().describe() << "\n";
    }
    if (!client) return Attempt::failed;
    ever_connected = true;
    session.set_client(client);
    session.initiate();
    return serve_session(*client, {.frame_source = "broker",
                                   .on_text = json_objects_to([&](const Json& m) { session.handle(m); }),
                                   .wait = [] { return std::chrono::milliseconds(100); },
                                   .tick = [&] { session.tick(); }},
                         stop, log);
  });
  return ever_connected ? 0 : 3;
}

namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto end = s.find(',', start);
    std::string item = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!item.empty()) out.push_back(item);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// The HTTP base of a ws:// or wss:// URL (scheme swapped, path dropped).
std::string http_base_of(const std::string& url) {
  std::string base = url;
  if (base.rfind("wss://", 0) == 0) base = "https://" + base.substr(6);
  else if (base.rfind("ws://", 0) == 0) base = "http://" + base.substr(5);
  const auto scheme_end = base.find("://");
  const auto path = base.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  return path == std::string::npos ? base : base.substr(0, path);
}

}  // namespace

ReferenceAgent a2acp_reference_agent() {
  ReferenceAgent a;
  a.protocol = "a2acp";
  a.path = "/a2acp/ws";
  a.misbehaviours = {
      {"ignore-contract-rejection", "sends its request to the peer after its handshake was rejected (no contract)"},
      {"reuse-expired-token", "keeps sending a token after its exp instead of acquiring a new one"},
      {"wrong-contract-id", "sends its request under the collaboration_id instead of the contract's contract_id"},
      {"omit-response-contract-id", "answers a routed request without the request's contract_id"},
      {"wrong-audience-token", "uses its broker token (aud = the broker) for messages to other agents"},
      {"decision-not-boolean", "answers accept_handshake with accepted \"true\" (a string, not a boolean)"},
      {"ignore-retry-after", "resends at once a message answered with retry_after > 0"},
      {"retry-non-retryable", "resends a message answered with retry_after 0 (don't retry)"},
  };
  a.run = [](const AgentRun& r, const std::atomic<bool>& stop, std::ostream& log) {
    A2acpAgentOptions o;
    o.url = r.url;
    if (!r.agent_id.empty()) o.agent_id = r.agent_id;
    if (!r.protocol_version.empty()) o.protocol_version = r.protocol_version;
    o.max_connections = r.max_connections;
    const char* http = std::getenv("AGENTCONFORM_HTTP");
    o.http_base = http != nullptr && *http != '\0' ? http : http_base_of(o.url);
    if (const char* key = std::getenv("AGENTCONFORM_API_KEY"); key != nullptr) o.api_key = key;
    for (const auto& [k, v] : r.settings) {
      if (k == "http") o.http_base = v;
      else if (k == "token_path") o.token_path = v;
      else if (k == "api_key") o.api_key = v;
      else if (k == "domain") o.domain = v;
      else if (k == "version") o.version = v;
      else if (k == "broker_id") o.broker_id = v;
      else if (k == "peer") o.peer = v;
      else if (k == "peer_domain") o.peer_domain = v;
      else if (k == "peer_version") o.peer_version = v;
      else if (k == "intent") o.intent = v;
      else if (k == "capabilities") o.capabilities = split_commas(v);
      else {
        log << "agent: unknown --set " << k << " for the a2acp agent (it reads http, token_path, api_key, domain, version, broker_id, peer, "
               "peer_domain, peer_version, intent, capabilities)\n";
        return 2;
      }
    }
    for (const auto& m : r.misbehave) {
      if (m == "ignore-contract-rejection") o.ignore_contract_rejection = true;
      if (m == "reuse-expired-token") o.reuse_expired_token = true;
      if (m == "wrong-contract-id") o.wrong_contract_id = true;
      if (m == "omit-response-contract-id") o.omit_response_contract_id = true;
      if (m == "wrong-audience-token") o.wrong_audience_token = true;
      if (m == "decision-not-boolean") o.decision_not_boolean = true;
      if (m == "ignore-retry-after") o.ignore_retry_after = true;
      if (m == "retry-non-retryable") o.retry_non_retryable = true;
    }
    return run_a2acp_agent(o, stop, log);
  };
  return a;
}

}  // namespace ac::ref

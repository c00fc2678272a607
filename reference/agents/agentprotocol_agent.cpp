#include "reference/agents/agentprotocol_agent.hpp"

#include <time.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <optional>
#include <ostream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness/crypto/base64.hpp"
#include "harness/crypto/ed25519.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/net/client.hpp"
#include "harness/protocols/agentprotocol/codec.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "reference/agents/agents.hpp"
#include "reference/agents/reconnect.hpp"

namespace ac::ref {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace ap = proto::agentprotocol;

constexpr const char* kProtocol = "agentprotocol/0.1";
constexpr const char* kVersion = "0.1";
constexpr std::size_t kSeenIds = 4096;  // message ids remembered for replay detection

std::optional<std::string> unhex(const std::string& text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    char* end = nullptr;
    const std::string pair = text.substr(i, 2);
    const long v = std::strtol(pair.c_str(), &end, 16);
    if (end != pair.c_str() + 2) return std::nullopt;
    out += static_cast<char>(v);
  }
  return out;
}

// An RFC 3339 date-time ("2026-02-01T15:08:00Z", fractions and offsets allowed) as seconds since
// the epoch; nullopt when it is not one.
std::optional<std::int64_t> epoch_seconds(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, n = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) != 6 || n != 19) return std::nullopt;
  std::size_t i = 19;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  }
  std::int64_t offset = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i + 6 == text.size() && (text[i] == '+' || text[i] == '-') && text[i + 3] == ':') {
    const int oh = std::atoi(text.substr(i + 1, 2).c_str()), om = std::atoi(text.substr(i + 4, 2).c_str());
    offset = (text[i] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != text.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  struct tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<std::int64_t>(::timegm(&tm)) - offset;
}

// A string member of an object, or "" (a peer's message must never throw in here).
std::string str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

struct Refusal {
  std::string code;
  std::string message;
};

class Session {
 public:
  Session(const AgentProtocolAgentOptions& o, const crypto::Ed25519PrivateKey& key, std::shared_ptr<net::WsClient> c,
          std::ostream& log)
      : o_(o), key_(key), id_(ap::agent_id(key.public_key())), c_(std::move(c)), log_(log) {}

  void hello() {
    send({{"type", "hello"}, {"payload", {{"version", o_.version}, {"features", Json::array({"signed-messages"})}}}});
  }

  // One text frame from the peer.
  void handle(const std::string& text) {
    auto parsed = json::parse_strict(text);
    if (!parsed || !parsed->is_object()) {
      refuse(Json(), {"INVALID_MESSAGE", "not a JSON object"});
      return;
    }
    const Json& m = *parsed;
    if (auto r = check(m)) {
      log_ << "refused a " << str(m, "type") << " message: " << r->code << " " << r->message << "\n";
      // An error is not answered with an error: two agents refusing each other would never stop.
      if (str(m, "type") != "error") refuse(m, *r);
      return;
    }
    remember(m);
    const std::string type = str(m, "type");
    const Json& payload = m["payload"];
    if (type == "hello") {
      peer_capabilities_ = m["from"]["capabilities"];
      bool offers = false;
      for (const auto& c : peer_capabilities_) offers = offers || (c.is_string() && c.get<std::string>() == o_.capability);
      // §Security Considerations 2: only request what the peer's hello lists.
      if (offers && pending_.empty()) {
        pending_ = "req-" + proto::typed::new_uuid_v4();
        send({{"type", "request"},
              {"payload", {{"action", o_.action}, {"correlationId", pending_}, {"params", {{"text", "agentconform"}}}}}});
      }
    } else if (type == "request") {
      const std::string corr = str(payload, "correlationId");
      const std::string action = str(payload, "action");
      if (action == "echo") {
        send({{"type", "response"},
              {"payload", {{"correlationId", corr}, {"status", "success"}, {"result", payload.value("params", Json::object())}}}});
      } else {
        send({{"type", "error"},
              {"payload", {{"correlationId", corr}, {"code", "CAPABILITY_NOT_SUPPORTED"},
                           {"message", "this agent does not serve " + action},
                           {"details", {{"requested", action}, {"available", Json::array({"echo"})}}}}}});
      }
    } else if (type == "response") {
      if (!pending_.empty() && str(payload, "correlationId") == pending_) {
        log_ << "request " << pending_ << " answered: " << str(payload, "status") << "\n";
        pending_.clear();
      }
    } else if (type == "error") {
      log_ << "peer error: " << str(payload, "code") << " " << str(payload, "message") << "\n";
    }
  }

 private:
  // Why `m` must not be acted on, or nullopt.
  std::optional<Refusal> check(const Json& m) {
    const bool is_signed = m.contains("signature");
    if (!o_.skip_signature_verification && (is_signed || !o_.accept_unsigned)) {
      if (!is_signed) return Refusal{"INVALID_SIGNATURE", "unsigned message: nothing proves who sent it"};
      auto v = ap::verify(m);
      if (!v) return Refusal{std::string(v.error().code()), v.error().describe()};
    }
    const Json& from = m.contains("from") ? m["from"] : Json();
    if (!o_.peer_id.empty() && str(from, "agentId") != o_.peer_id) {
      return Refusal{"INVALID_SIGNATURE", "from.agentId is not the peer this agent talks to (" + o_.peer_id + ")"};
    }
    Json as_current = m;
    if (str(m, "protocol") != kProtocol) {
      if (!o_.accept_old_version) return Refusal{"INVALID_MESSAGE", "protocol must be " + std::string(kProtocol)};
      as_current["protocol"] = kProtocol;
    }
    if (auto decoded = ap::from_json(as_current); !decoded) return Refusal{"INVALID_MESSAGE", decoded.error().describe()};
    if (str(m["to"], "agentId") != id_) return Refusal{"UNKNOWN_AGENT", "to.agentId is not this agent (" + id_ + ")"};
    if (!o_.ignore_timestamp) {
      const auto at = epoch_seconds(str(m, "timestamp"));
      const auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
      if (!at) return Refusal{"INVALID_MESSAGE", "timestamp is not an ISO 8601 date-time"};
      if (*at < now - o_.max_skew.count() || *at > now + o_.max_skew.count()) {
        return Refusal{"INVALID_MESSAGE", "timestamp " + str(m, "timestamp") + " is more than " + std::to_string(o_.max_skew.count()) +
                                              " s away from this agent's clock (stale or future-dated)"};
      }
    }
    if (!o_.accept_replay && seen_.count(key_of(m)) != 0) {
      return Refusal{"INVALID_MESSAGE", "message id " + str(m, "id") + " was already processed (replay)"};
    }
    if (str(m, "type") == "hello" && !o_.accept_old_version && str(m["payload"], "version") != kVersion) {
      return Refusal{"INVALID_MESSAGE", "hello payload.version must be " + std::string(kVersion)};
    }
    return std::nullopt;
  }

  static std::string key_of(const Json& m) { return str(m["from"], "agentId") + " " + str(m, "id"); }

  void remember(const Json& m) {
    const std::string k = key_of(m);
    if (!seen_.insert(k).second) return;
    order_.push_back(k);
    if (order_.size() > kSeenIds) {
      seen_.erase(order_.front());
      order_.pop_front();
    }
  }

  void refuse(const Json& m, const Refusal& r) {
    Json payload = {{"code", r.code}, {"message", r.message}};
    const std::string corr = m.contains("payload") ? str(m["payload"], "correlationId") : std::string();
    if (!corr.empty()) payload["correlationId"] = corr;
    send({{"type", "error"}, {"payload", payload}});
  }

  // Completes the envelope, signs and sends.
  void send(Json m) {
    m["protocol"] = kProtocol;
    if (!o_.reuse_message_id || first_id_.empty()) first_id_ = proto::typed::new_uuid_v4();
    m["id"] = first_id_;
    m["timestamp"] = proto::typed::utc_now();
    m["from"] = {{"agentId", id_}, {"name", o_.name}, {"capabilities", Json::array({"agentprotocol:core", "agentconform:echo"})}};
    m["to"] = {{"agentId", o_.peer_id}, {"broadcast", false}};
    if (o_.sign_wrong_bytes) {
      // Indented JSON instead of the canonical form: the signature cannot verify.
      auto sig = key_.sign(m.dump(2));
      if (sig) m["signature"] = crypto::base64_encode(*sig);
    } else if (auto signed_m = ap::sign(m, key_)) {
      m = std::move(*signed_m);
    } else {
      log_ << "cannot sign: " << signed_m.error().describe() << "\n";
      return;
    }
    c_->send_text(m.dump());
  }

  const AgentProtocolAgentOptions& o_;
  const crypto::Ed25519PrivateKey& key_;
  const std::string id_;
  std::shared_ptr<net::WsClient> c_;
  std::ostream& log_;
  Json peer_capabilities_ = Json::array();
  std::string pending_;   // correlationId of its request awaiting a response
  std::string first_id_;
  std::set<std::string> seen_;
  std::deque<std::string> order_;
};

}  // namespace

int run_agentprotocol_agent(const AgentProtocolAgentOptions& o, const std::atomic<bool>& stop, std::ostream& log) {
  if (o.peer_id.empty()) {
    log << "agent: the agentprotocol agent needs the peer's agentId: set AGENTCONFORM_PEER_ID or --set peer=ID\n";
    return 2;
  }
  auto key = o.seed_hex.empty() ? crypto::Ed25519PrivateKey::generate() : [&]() -> Expected<crypto::Ed25519PrivateKey, crypto::CryptoError> {
    auto seed = unhex(o.seed_hex);
    if (!seed || seed->size() != crypto::kEd25519SeedSize) return crypto::Ed25519PrivateKey::from_seed("");
    return crypto::Ed25519PrivateKey::from_seed(*seed);
  }();
  if (!key) {
    log << "agent: --set seed must be 64 hex digits (an Ed25519 seed): " << key.error().describe() << "\n";
    return 2;
  }
  net::Runtime runtime(1);
  bool ever_connected = false;
  run_reconnecting(o.max_connections, o.reconnect_delay, stop, [&] {
    auto client = connect_or_log(runtime, o.url, log);
    if (!client) return Attempt::failed;
    ever_connected = true;
    Session session(o, *key, client, log);
    session.hello();
    return serve_session(*client, {.frame_source = "peer",
                                   .on_text = [&](const std::string& text) { session.handle(text); },
                                   .wait = [] { return std::chrono::milliseconds(100); }},
                        stop, log);
  });
  return ever_connected ? 0 : 3;
}

ReferenceAgent agentprotocol_reference_agent() {
  ReferenceAgent a;
  a.protocol = "agentprotocol";
  a.path = "/agentprotocol/ws";
  a.misbehaviours = {
      {"skip-signature-verification", "acts on messages whose signature is missing or does not verify"},
      {"accept-unsigned", "verifies signatures only when there is one: acts on unsigned messages"},
      {"accept-old-version", "acts on messages of another protocol version and hellos of another payload.version"},
      {"sign-wrong-bytes", "signs indented JSON instead of the canonical form (its signatures do not verify)"},
      {"reuse-message-id", "sends every message with the same id"},
      {"accept-replay", "serves again a message id it already processed (a replayed signed request)"},
      {"ignore-timestamp", "serves messages whose timestamp is years stale or future-dated"},
  };
  a.run = [](const AgentRun& r, const std::atomic<bool>& stop, std::ostream& log) {
    AgentProtocolAgentOptions o;
    o.url = r.url;
    if (!r.agent_id.empty()) {
      log << "agent: an AgentProtocol agentId is its public key; give --set seed=HEX (64 hex digits) instead of --agent-id\n";
      return 2;
    }
    if (!r.protocol_version.empty()) o.version = r.protocol_version;
    o.max_connections = r.max_connections;
    if (const char* peer = std::getenv("AGENTCONFORM_PEER_ID")) o.peer_id = peer;
    for (const auto& [k, v] : r.settings) {
      if (k == "peer") {
        o.peer_id = v;
      } else if (k == "seed") {
        o.seed_hex = v;
      } else if (k == "name") {
        o.name = v;
      } else if (k == "action") {
        o.action = v;
      } else if (k == "capability") {
        o.capability = v;
      } else {
        log << "agent: unknown --set " << k << " for agentprotocol (peer, seed, name, action, capability)\n";
        return 2;
      }
    }
    for (const auto& m : r.misbehave) {
      if (m == "skip-signature-verification") o.skip_signature_verification = true;
      if (m == "accept-unsigned") o.accept_unsigned = true;
      if (m == "accept-old-version") o.accept_old_version = true;
      if (m == "sign-wrong-bytes") o.sign_wrong_bytes = true;
      if (m == "reuse-message-id") o.reuse_message_id = true;
      if (m == "accept-replay") o.accept_replay = true;
      if (m == "ignore-timestamp") o.ignore_timestamp = true;
    }
    return run_agentprotocol_agent(o, stop, log);
  };
  return a;
}

}  // namespace ac::ref

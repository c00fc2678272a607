// A2ACP 1.0 (a2acp-1.0.md) over the broker's WebSocket binding (reference/a2acp/README.md):
// agents attach with ?agent_id=, every message carries a JWT in security.auth_token.
//   seed       a (an unlisted source) and b (a target leased from the directory pool
//              settings.target_agents.dataset) attach; a asks the broker for a handshake on
//              provision_test_dataset, b accepts, a sends a request under the contract, b
//              answers; sometimes a terminates the collaboration
//   structure  other protocol versions, unknown contracts and intents, payloads breaking the
//              contract's schema, oversized payloads, targets outside the directory
//   auth       tokens expired, unsigned (alg none), forged, for another audience or issuer,
//              without capabilities; a source_agent naming another agent
//   protocol   a message with a bad token or a claimed identity that is not the connection's
//              draws AUTH_FAILED ("The ProtocolBrokerAgent MUST validate tokens before routing
//              messages") and is never routed; every other broken message draws an error
//   isolation  a routed message reaches only its target_agent, unchanged
//   probe      a broken message on a fresh attachment is answered with an error
#include <atomic>
#include <set>

#include "harness/crypto/base64.hpp"
#include "harness/crypto/jwt.hpp"
#include "harness/fuzz/profiles/profiles.hpp"
#include "harness/protocols/a2acp/token.hpp"

namespace ac::fuzz {
namespace {

namespace a2 = proto::a2acp;

constexpr std::size_t kExchangesPerRound = 4;  // exchanges per round of mutations in a long session
const std::vector<std::string> kCapabilities = {"read:datasets", "write:test_scenarios"};

Json agent_ref(const std::string& who) {
  if (who == "broker") return Json{{"agent_id", "${broker}"}, {"domain", "${broker.domain}"}, {"version", "1.0.0"}};
  return Json{{"agent_id", "${" + who + "}"}, {"domain", "${" + who + ".domain}"}, {"version", "1.0.0"}};
}

Json message(const std::string& from, const std::string& to, const char* type, const char* intent, Json payload, int id,
             const std::string& token_kind = "jwt") {
  return Json{{"protocol_version", "1.0"},
              {"message_id", "${uuid:" + std::to_string(id) + "}"},
              {"timestamp", "${now}"},
              {"source_agent", agent_ref(from)},
              {"target_agent", agent_ref(to)},
              {"message_type", type},
              {"intent", intent},
              {"payload", std::move(payload)},
              {"security", {{"auth_token", "${" + token_kind + ":" + from + ">" + to + "}"}, {"encryption", "none"}}}};
}

std::string error_code(const Json& m) {
  return string_at(m, {"payload", "error", "code"});
}

class A2acp final : public Profile {
 public:
  Protocol protocol() const override { return Protocol::a2acp; }

  // The auth service (reading A2-11/A2-20): token requests for a and c, sometimes for the same
  // subject twice at once.
  static Step token_request(const std::string& who, const std::string& audience, int ttl) {
    return http_step(who, "POST", "${path.token}",
                     Json{{"agent_id", "${" + who + "}"}, {"target_agent_id", "${" + audience + "}"},
                          {"requested_capabilities", Json::array({"read:datasets", "write:test_scenarios"})}, {"ttl", ttl},
                          {"${api_key.member}", "${api_key}"}},
                     {{who + ".service_token", "/token"}});
  }

  std::vector<Step> seed_flow(Rng& rng, const Scope& scope) const override {
    // Partial roles (target.json "roles"): an auth service alone gets token requests only; a
    // broker alone gets the broker flow (its tokens made here, from settings.jwt_secret).
    if (!scope.plays("broker")) {
      std::vector<Step> s{token_request("a", "b", 3600), token_request("c", "broker", 60)};
      if (chance(rng, 0.5)) s.push_back(token_request("a", "broker", 1));
      return s;
    }
    std::vector<Step> s;
    if (scope.plays("auth-service") && chance(rng, 0.25)) s.push_back(token_request("a", "b", 3600));
    s.push_back(connect_step("a", "${path.ws}?agent_id=${a}"));
    s.push_back(connect_step("b", "${path.ws}?agent_id=${b}"));
    s.push_back(text_step("a", message("a", "broker", "request", "initiate_handshake",
                                       {{"target_agent_id", "${b}"}, {"requested_intent", "provision_test_dataset"}, {"correlation_id", "${id:h-1}"}}, 1)));
    s.push_back(await_step("b", "accept_handshake", {{"b.collab", "/payload/collaboration_id"}}));
    s.push_back(text_step("b", message("b", "broker", "response", "accept_handshake",
                                       {{"accepted", true}, {"collaboration_id", "${b.collab}"}, {"correlation_id", "${id:h-1}"}}, 2)));
    s.push_back(await_step("a", "\"contract\"", {{"contract", "/payload/contract/contract_id"}}));
    // One handshake, then 1-3 exchanges under its contract, or (three sessions in four) 8, 12
    // or 16: a session reuses its attachments and its handshake instead of paying for new ones
    // every few exchanges (issue 16's fuzz throughput: 1.1 ms per session against 124 us per
    // frame, docs/performance.md), and a long session takes a round of 1-3 mutations per 4
    // exchanges (mutation_rounds), so it is mutated as densely as a short one. Short sessions
    // stay for mutations of the handshake, which are a larger share of their steps.
    const int exchanges = chance(rng, 0.25) ? 1 + static_cast<int>(pick(rng, 3)) : static_cast<int>(kExchangesPerRound * (2 + pick(rng, 3)));
    for (int r = 1; r <= exchanges; ++r) {
      const std::string n = std::to_string(r);
      s.push_back(text_step("a", message("a", "b", "request", "provision_test_dataset",
                                         {{"test_scenario_id", "scenario-" + n}, {"dataset_type", "patient_demographics"}, {"record_count", 10},
                                          {"contract_id", "${contract}"}, {"correlation_id", "${id:r-" + n + "}"}}, 3 + 10 * (r - 1))));
      s.push_back(await_step("b", "scenario-" + n + "\""));
      s.push_back(text_step("b", message("b", "a", "response", "provision_test_dataset",
                                         {{"dataset_id", "dataset-" + n}, {"record_count", 10}, {"contract_id", "${contract}"},
                                          {"correlation_id", "${id:r-" + n + "}"}}, 4 + 10 * (r - 1))));
    }
    if (chance(rng, 0.5)) {
      s.push_back(text_step("a", message("a", "b", "event", "provision_test_dataset", {{"contract_id", "${contract}"}, {"note", "done"}}, 5)));
    }
    if (chance(rng, 0.5)) {
      s.push_back(text_step("a", message("a", "broker", "request", "terminate_collaboration", {{"contract_id", "${contract}"}}, 6)));
    }
    return s;
  }

  std::size_t mutation_rounds(const std::vector<Step>& seed) const override {
    return std::max<std::size_t>(1, text_steps_with(seed, "\"test_scenario_id\"").size() / kExchangesPerRound);
  }

  std::string structure(Rng& rng, std::vector<Step>& s) const override {
    auto msgs = text_steps_with(s, "\"protocol_version\"");
    if (msgs.empty()) return {};
    const std::size_t i = msgs[pick(rng, msgs.size())];
    const std::string at = " in step " + std::to_string(i);
    switch (pick(rng, 6)) {
      case 5: {
        // Identifier collision: once a's contract stands, c attaches and asks for a handshake with
        // a's message_id and correlation_id; whatever the broker answers c must reach c, not a.
        std::size_t at_step = s.size();
        for (std::size_t k = 0; k < s.size(); ++k) {
          if (s[k].kind == Step::Kind::await && s[k].data.find("contract") != std::string::npos) at_step = k + 1;
        }
        if (at_step >= s.size()) return {};
            s.insert(s.begin() + static_cast<std::ptrdiff_t>(at_step),
                 {connect_step("c", "${path.ws}?agent_id=${c}"),
                  text_step("c", message("c", "broker", "request", "initiate_handshake",
                                         {{"target_agent_id", "${b}"}, {"requested_intent", "provision_test_dataset"}, {"correlation_id", "${id:h-1}"}}, 1))});
        return "structure: c reuses a's message_id and correlation_id for its own handshake (step " + std::to_string(at_step) + ")";
      }
      case 0: {
        static const Json versions[] = {"2.0", "0.9", "1", "1.0.0", "v1.0", "3.1"};
        set_member(s[i], "protocol_version", versions[pick(rng, std::size(versions))]);
        return "structure: protocol_version" + at;
      }
      case 1:
        set_pointer(s[i], "/payload/contract_id", chance(rng, 0.5) ? Json("contract-unknown") : Json(42));
        return "structure: unknown contract" + at;
      case 2: {
        static const Json intents[] = {"no_such_intent", "provision_patient_records", "accept_handshake", ""};
        set_member(s[i], "intent", intents[pick(rng, std::size(intents))]);
        return "structure: intent" + at;
      }
      case 3: {
        auto reqs = text_steps_with(s, "\"test_scenario_id\"");
        if (reqs.empty()) return {};
        const std::size_t k = reqs[pick(rng, reqs.size())];
        if (chance(rng, 0.3)) set_pointer(s[k], "/payload/blob", std::string(950 * 1024, 'p'));  // over the 900 KB payload limit
        else set_pointer(s[k], "/payload/record_count", chance(rng, 0.5) ? Json(-5) : Json("ten"));
        return "structure: payload against the contract in step " + std::to_string(k);
      }
      default:
        set_pointer(s[i], "/payload/target_agent_id", "not-in-directory");
        return "structure: handshake target outside the directory" + at;
    }
  }

  std::string auth(Rng& rng, std::vector<Step>& s) const override {
    auto msgs = text_steps_with(s, "\"auth_token\"");
    if (msgs.empty()) return {};
    const std::size_t i = msgs[pick(rng, msgs.size())];
    static const char* kinds[] = {"jwt-expired", "jwt-none", "jwt-forged", "jwt-wrong-aud", "jwt-wrong-iss", "jwt-no-caps", "impersonate"};
    const std::string kind = kinds[pick(rng, std::size(kinds))];
    if (kind == "impersonate") {
      set_pointer(s[i], "/source_agent/agent_id", s[i].conn == "a" ? "${b}" : "${a}");
      return "auth: source_agent of another agent in step " + std::to_string(i);
    }
    auto j = strict_object(s[i].data);
    if (!j) return {};
    std::string token = string_at(*j, {"security", "auth_token"});
    if (!token.starts_with("${jwt:")) return {};
    token.replace(2, 3, kind);
    (*j)["security"]["auth_token"] = token;
    s[i].data = j->dump();
    return "auth: " + kind + " token in step " + std::to_string(i);
  }

  void begin(Exec& exec, const TargetView& target) const override {
    exec.vars["a"] = exec.prefix + "a";
    exec.vars["c"] = exec.prefix + "c";
    exec.vars["b"] = lease(target.config.settings);
    exec.vars["a.domain"] = exec.vars["c.domain"] = target.config.setting("agent_domain", "a_domain");
    exec.vars["b.domain"] = target.config.setting("dataset_domain", "a_domain");
    exec.vars["broker"] = target.config.setting("broker_agent_id", "protocol-broker-agent");
    exec.vars["broker.domain"] = target.config.setting("broker_domain", "a_domain");
    exec.vars["path.ws"] = target.config.path("ws");
    exec.vars["path.token"] = target.config.path("token");
    exec.vars["api_key"] = target.config.setting("api_key");
    exec.vars["api_key.member"] = target.config.setting("api_key_member", "api_key");
  }

  // The next target of the dataset pool: a process-wide counter, so executions (and parallel
  // jobs) never reuse an agent whose previous attachment may still be closing.
  static std::string lease(const Json& settings) {
    static std::atomic<std::size_t> next{0};
    const Json& ids = at_path(settings, {"target_agents", "dataset"});
    if (!ids.is_array() || ids.empty() || !ids[0].is_string()) return "dataset-provisioning-agent";
    return ids[next.fetch_add(1) % ids.size()].get<std::string>();
  }

  std::optional<std::string> resolve(Exec& exec, const TargetView& target, const std::string& name) const override {
    // ${<kind>:<from>><to>}
    const auto colon = name.find(':'), arrow = name.find('>');
    if (!name.starts_with("jwt") || colon == std::string::npos || arrow == std::string::npos || arrow < colon) return std::nullopt;
    const std::string kind = name.substr(0, colon);
    static const std::set<std::string> kKinds = {"jwt", "jwt-expired", "jwt-none", "jwt-forged", "jwt-wrong-aud", "jwt-wrong-iss", "jwt-no-caps"};
    if (!kKinds.count(kind)) return std::nullopt;  // (a placeholder a mutation damaged stays as written)
    const std::string sub = exec.id_of(name.substr(colon + 1, arrow - colon - 1));
    const std::string aud = exec.id_of(name.substr(arrow + 1));
    const std::string secret = target.config.setting("jwt_secret");
    auto key = crypto::jwt::Key::hmac(kind == "jwt-forged" ? "forged-secret-of-the-fuzzer-0123456789abcdef" : secret);
    if (!key) return std::nullopt;
    a2::IssueParams p;
    p.sub = sub;
    p.aud = kind == "jwt-wrong-aud" ? exec.prefix + "someone-else" : aud;
    p.iss = kind == "jwt-wrong-iss" ? "evil-issuer" : target.config.setting("issuer", std::string(a2::kDefaultIssuer));
    p.capabilities = kind == "jwt-no-caps" ? std::vector<std::string>{} : kCapabilities;
    p.domain = target.config.setting("agent_domain", "a_domain");
    p.ttl = 300;
    if (kind == "jwt-expired") {
      const std::int64_t now = crypto::jwt::system_now();
      p.clock = [now] { return now - 600; };
    }
    auto token = a2::issue(p, *key);
    if (!token) return std::nullopt;
    std::string out = std::move(*token);
    if (kind == "jwt-none") {
      // The same claims, unsigned: header {"alg":"none"} and an empty signature segment.
      const auto dot = out.find('.');
      const auto dot2 = out.find('.', dot + 1);
      out = crypto::base64url_encode(R"({"alg":"none","typ":"JWT"})") + out.substr(dot, dot2 - dot) + ".";
    }
    if (kind != "jwt") exec.state["bad_tokens"][out] = kind;
    return out;
  }

  void connected(Exec& exec, ConnRecord& c, const Step&) const override { c.id = exec.id_of(c.label); }

  void sent(Exec& exec, ConnRecord& c, const std::string& payload) const override {
    // Not JSON at all (a byte-order mark included): refusing or ignoring it are both fine.
    auto object = plain_object(payload);
    if (!object) return;
    auto decoded = profile_of(Protocol::a2acp).check(std::move(*object));
    if (!decoded) {
      owe_error(c, payload);
      return;
    }
    const Json& m = decoded->value;
    const std::string token = string_at(m, {"security", "auth_token"});
    const std::string kind = exec.state.contains("bad_tokens") ? exec.state["bad_tokens"].value(token, "") : "";
    const bool foreign = string_at(m, {"source_agent", "agent_id"}) != c.id;
    // Majors 1 and 0 (N-1) are accepted; another major is refused before any token rule.
    const std::string version = member_string(m, "protocol_version");
    const bool version_ok = version.starts_with("1.") || version.starts_with("0.");
    // Rule 4 needs the intent's capabilities, which only the broker's directory knows; what is
    // known here: a handshake for the seed's intent needs read:datasets.
    const bool caps_matter = member_string(m, "intent") == "initiate_handshake" &&
                             string_at(m, {"payload", "requested_intent"}) == "provision_test_dataset" &&
                             string_at(m, {"payload", "target_agent_id"}) == exec.id_of("b");
    if (version_ok && (foreign || (!kind.empty() && (kind != "jwt-no-caps" || caps_matter)))) {
      owe_error(c, payload, "AUTH_FAILED", foreign ? "source_agent of another agent" : kind);
      exec.state["unroutable"][payload] = true;  // the frame itself: a replay may reuse the message_id
      return;
    }
    const std::string to = string_at(m, {"target_agent", "agent_id"});
    if (to != exec.id_of("broker")) exec.state["routed"][payload] = to;
  }

  static std::vector<Json> broker_errors(const Exec& exec, const ConnRecord& c) {
    std::vector<Json> out;
    for (const auto& e : c.events) {
      auto j = event_object(e);
      if (j && member_string(*j, "message_type") == "error" &&
          string_at(*j, {"source_agent", "agent_id"}) == exec.id_of("broker")) {
        out.push_back(std::move(*j));
      }
    }
    return out;
  }

  bool satisfied(const Exec& exec) const override {
    return owed_errors_arrived(exec, [&](const ConnRecord& c) { return broker_errors(exec, c); });
  }

  std::optional<Trip> judge(const Exec& exec) const override {
    // Rate limits come first in the broker's pipeline: a rate-limited message was refused too.
    static const OwedErrorRule rule{"a broken or unauthenticated message drew no error", "AUTH_FAILED",
                                    {"AUTH_FAILED", "RATE_LIMIT_EXCEEDED"},
                                    "a message with an invalid token or a foreign identity was not refused with AUTH_FAILED"};
    if (auto trip = judge_owed_errors(exec, [&](const ConnRecord& c) { return broker_errors(exec, c); }, error_code, rule)) return trip;
    const Json routed = exec.state.value("routed", Json::object());
    const Json unroutable = exec.state.value("unroutable", Json::object());
    for (const auto& c : exec.conns) {
      for (const auto& e : c.events) {
        auto j = event_object(e);
        if (!j || string_at(*j, {"source_agent", "agent_id"}) == exec.id_of("broker")) continue;
        const std::string detail = "connection " + c.label + " got: " + shorten(e.data);
        if (unroutable.contains(e.data)) {
          return Trip{"isolation", "a message with an invalid token or a foreign identity was routed", detail};
        }
        if (string_at(*j, {"target_agent", "agent_id"}) != c.id) {
          return Trip{"isolation", "a message delivered to an agent other than its target_agent", detail};
        }
        if (!routed.contains(e.data) && !sent_untracked(exec, e.data)) {
          return Trip{"isolation", "a delivered message that no connection sent, or changed in transit", detail};
        }
      }
    }
    return std::nullopt;
  }

  std::optional<Trip> probe(const TargetView& target, const std::string& salt) const override {
    if (!target.config.plays("broker")) {
      // An auth service alone: a valid token request is answered with a token.
      Json body{{"agent_id", "probe" + salt}, {"target_agent_id", target.config.setting("broker_agent_id", "protocol-broker-agent")},
                {"requested_capabilities", Json::array({"read:datasets"})}, {"ttl", 60}};
      if (const std::string key = target.config.setting("api_key"); !key.empty()) body[target.config.setting("api_key_member", "api_key")] = key;
      auto r = probe_http(target, "POST", target.config.path("token"), body.dump());
      if (!r) return r.error();
      const Json answer = parse_loose(r->body);
      if (r->status / 100 != 2 || member_string(answer, "token").empty()) {
        return Trip{r->status >= 500 ? "liveness" : "protocol", "probe: a valid token request was not answered with a token", std::to_string(r->status) + " " + shorten(r->body)};
      }
      return std::nullopt;
    }
    auto ws = probe_connect(target, target.config.path("ws") + "?agent_id=probe" + salt);
    if (!ws) return ws.error();
    (*ws)->send_text(R"({"protocol_version":"1.0"})");
    const bool answered = wait_for(**ws, [](const net::WsEvent& e) {
      auto j = event_object(e);
      return j && member_string(*j, "message_type") == "error";
    }, target.probe_timeout);
    if (!answered) {
      const Trip t = probe_unanswered(**ws, target, Trip{"hang", "probe: a broken message on a fresh attachment drew no error", "no error in time"});
      (*ws)->close(1000);
      return t;
    }
    (*ws)->close(1000);
    return std::nullopt;
  }
};

}  // namespace

const Profile& a2acp_profile() {
  static const A2acp p;
  return p;
}

}  // namespace ac::fuzz

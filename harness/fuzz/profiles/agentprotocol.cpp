// AgentProtocol 0.1 (agentprotocol-0.1.md) over its WebSocket binding: every agent of a session
// has an Ed25519 key made for the execution (${a} = base64 of its public key), and every message
// is signed last, as the step's `sign` says (valid, none, bad, other-key, tamper-after,
// noncanonical).
//   seed       a and b say hello to the peer (the target), a requests echo and reverse, a
//              notifies b through the relay, b answers a, a broadcasts a notify
//   structure  unknown actions and recipients, other protocol and hello versions, requests
//              with odd timeouts, the correlationId dropped
//   auth       signatures missing, flipped, by another key, over a tampered or a
//              non-canonical form; from.agentId of another agent
//   protocol   a message whose signature does not verify draws an error INVALID_SIGNATURE
//              ("Always verify signatures before trusting message content"); every other
//              broken message, and a message to an unknown agent, draws an error message
//   isolation  a relayed message reaches only its to.agentId (or everyone, for a broadcast),
//              byte for byte, with its signature still valid
//   probe      a signed hello on a fresh connection is answered with a hello
#include <algorithm>

#include "harness/crypto/base64.hpp"
#include "harness/fuzz/profiles/profiles.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"

namespace ac::fuzz {
namespace {

namespace ap = proto::agentprotocol;

Json message(const std::string& from, const std::string& to, const char* type, Json payload, int id, bool broadcast = false) {
  return Json{{"protocol", "agentprotocol/0.1"},
              {"id", "${uuid:" + std::to_string(id) + "}"},
              {"timestamp", "${now}"},
              {"from", {{"agentId", "${" + from + "}"}, {"name", "fuzz " + from}, {"capabilities", {"agentprotocol:core"}}}},
              {"to", {{"agentId", to == "peer" ? std::string("${peer}") : "${" + to + "}"}, {"broadcast", broadcast}}},
              {"type", type},
              {"payload", std::move(payload)}};
}

Json request(const char* action, Json params, const std::string& correlation) {
  return Json{{"action", action}, {"correlationId", correlation}, {"params", std::move(params)}, {"timeout", 5000}};
}

constexpr std::size_t kRequestRoundsPerMutationRound = 3;  // in a long session (seed_flow)

std::string error_code(const Json& m) { return string_at(m, {"payload", "code"}); }

// The agents' keys, reused per job thread in a rotation of kIdentityRing sessions: the agents of a
// session hold the keys of the session kIdentityRing before it on the same job, whose connections
// it closed long ago. Making a key pair for every agent of every session, and the target checking
// every new public key, was a sixth of an AgentProtocol campaign (perf, 2026-11-26). A job is one
// thread, and its executor runs one session at a time.
constexpr std::size_t kIdentitiesPerSession = 4;  // a, b, c, other
constexpr std::size_t kIdentityRing = 32;
Expected<crypto::Ed25519PrivateKey, crypto::CryptoError> rotating_identity() {
  thread_local std::vector<crypto::Ed25519PrivateKey> ring;
  thread_local std::size_t next = 0;
  constexpr std::size_t size = kIdentitiesPerSession * kIdentityRing;
  if (ring.size() < size) {
    auto key = crypto::Ed25519PrivateKey::generate();
    if (key) ring.push_back(*key);
    return key;
  }
  return ring[next++ % size];
}

// A frame this execution signed with its sender's key ("valid") still verifies exactly when its
// bytes read, strictly as verify_text() reads them, to a message with that signature, that
// from.agentId and that signature base: an Ed25519 signature made over those bytes with that key
// verifies. So sent() learns what verify_text() would say without its Ed25519 check (130 us on
// this machine), which re-verified every frame the fuzzer had just signed: a fifth of a campaign.
// `parsed`: the payload as the strict reader read it.
bool signed_here_intact(const Exec& exec, const std::string& payload, const Json& parsed) {
  const Json& own = at_path(exec.state, {"own"});
  const auto it = own.is_object() ? own.find(payload) : own.end();
  if (it == own.end() || !parsed.is_object()) return false;
  if (member_string(parsed, "signature") != member_string(*it, "signature")) return false;
  if (string_at(parsed, {"from", "agentId"}) != member_string(*it, "agent")) return false;
  auto base = ap::signature_base(parsed);
  return base && *base == member_string(*it, "base");
}

class AgentProtocol final : public Profile {
 public:
  Protocol protocol() const override { return Protocol::agentprotocol; }

  std::vector<Step> seed_flow(Rng& rng, const Scope& scope) const override {
    // Both transports of the spec: over WebSocket agents stay connected (and a relay can reach
    // them); over HTTP every message is a POST answered in its response. A target declares which
    // it offers (target.json "transports") and whether it relays (role "relay").
    const bool ws = scope.offers("ws") || !scope.offers("http");
    const bool over_http = !ws || (scope.offers("http") && chance(rng, 0.3));
    const std::string binding = over_http ? "http:${path.http}" : "${path.ws}";
    std::vector<Step> s{connect_step("a", binding), connect_step("b", binding)};
    s.push_back(text_step("a", message("a", "peer", "hello", {{"version", "0.1"}, {"features", {"signed-messages"}}}, 1), "valid"));
    s.push_back(text_step("b", message("b", "peer", "hello", {{"version", "0.1"}, {"features", {"signed-messages"}}}, 2), "valid"));
    // Rounds of requests after one pair of hellos: a session reuses its connections and hellos
    // instead of paying for new ones (and new keys) every few requests (issue 16). 1-3 rounds in
    // one session of four, 6, 9 or 12 in the others, which take a round of 1-3 mutations per 3
    // rounds of requests (mutation_rounds): as densely mutated as a short session.
    const int rounds = chance(rng, 0.25) ? 1 + static_cast<int>(pick(rng, 3)) : static_cast<int>(kRequestRoundsPerMutationRound * (2 + pick(rng, 3)));
    for (int r = 1; r <= rounds; ++r) {
      const int id = r == 1 ? 0 : 30 + 10 * r;   // message ids 3-5, then 53-55, 63-65, ... 153-155 (20, 21: structure case 5)
      const std::string c = r == 1 ? "c-" : "c-" + std::to_string(r) + "-";  // correlationIds c-1 (case 5 reuses it), c-2-1, ...
      s.push_back(text_step("a", message("a", "peer", "request", request("echo", {{"text", "hi"}}, "${id:" + c + "1}"), 3 + id), "valid"));
      s.push_back(text_step("a", message("a", "peer", "request", request("reverse", {{"text", "stressed"}}, "${id:" + c + "2}"), 4 + id), "valid"));
      if (chance(rng, 0.5)) {
        s.push_back(text_step("a", message("a", "peer", "request", request("sum", {{"numbers", {1, 2.5, -3}}}, "${id:" + c + "3}"), 5 + id), "valid"));
      }
    }
    if (!over_http && scope.plays("relay")) {
      s.push_back(text_step("a", message("a", "b", "notify", {{"event", "ready"}}, 6), "valid"));
      s.push_back(text_step("b", message("b", "a", "response", {{"correlationId", "${id:c-9}"}, {"status", "success"}, {"result", {{"ok", true}}}}, 7), "valid"));
      if (chance(rng, 0.5)) s.push_back(text_step("a", message("a", "peer", "notify", {{"event", "to-all"}}, 8, true), "valid"));
    }
    return s;
  }

  std::size_t mutation_rounds(const std::vector<Step>& seed) const override {
    return std::max<std::size_t>(1, text_steps_with(seed, "\"echo\"").size() / kRequestRoundsPerMutationRound);
  }

  std::string structure(Rng& rng, std::vector<Step>& s) const override {
    auto msgs = text_steps_with(s, "\"agentprotocol/");
    if (msgs.empty()) return {};
    const std::size_t i = msgs[pick(rng, msgs.size())];
    const std::string at = " in step " + std::to_string(i);
    switch (pick(rng, 6)) {
      case 5: {
        // Identifier collision: c asks the peer for the same action under the correlationId of a's
        // open request, at once: each answer must reach the agent that asked.
        auto requests = text_steps_with(s, "\"${id:c-1}\"");
        if (requests.empty() || s.empty()) return {};
        const std::size_t k = requests[0] + 1;
        // The session's transport, from a connect step: not s[0], which an earlier mutation may
        // have moved or put a pause before (a "connect" to a JSON message, FuzzScope).
        const auto connect = std::find_if(s.begin(), s.end(), [](const Step& st) { return st.kind == Step::Kind::connect && !st.data.empty(); });
        if (connect == s.end()) return {};
        const std::string binding = connect->data;
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(std::min(k, s.size())),
                 {connect_step("c", binding),
                  text_step("c", message("c", "peer", "hello", {{"version", "0.1"}, {"features", {"signed-messages"}}}, 20), "valid"),
                  text_step("c", message("c", "peer", "request", request("echo", {{"text", "from c"}}, "${id:c-1}"), 21), "valid")});
        return "structure: c reuses the correlationId of a's open request (step " + std::to_string(k) + ")";
      }
      case 0: set_pointer(s[i], "/payload/action", chance(rng, 0.5) ? "code-review" : "agentconform:missing"); return "structure: unknown action" + at;
      case 1: set_pointer(s[i], "/to/agentId", chance(rng, 0.5) ? "nobody" : "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="); return "structure: unknown recipient" + at;
      case 2: {
        static const Json protocols[] = {"agentprotocol/0.2", "agentprotocol/1.0", "agentprotocol", "AgentProtocol/0.1", ""};
        set_member(s[i], "protocol", protocols[pick(rng, std::size(protocols))]);
        return "structure: protocol" + at;
      }
      case 3: {
        auto hellos = text_steps_with(s, "\"hello\"");
        if (hellos.empty()) return {};
        const std::size_t k = hellos[pick(rng, hellos.size())];
        static const Json versions[] = {"0.2", "1.0", "0.1.0", "", 0.1};
        set_pointer(s[k], "/payload/version", versions[pick(rng, std::size(versions))]);
        return "structure: hello version in step " + std::to_string(k);
      }
      default: {
        auto requests = text_steps_with(s, "\"request\"");
        if (requests.empty()) return {};
        const std::size_t k = requests[pick(rng, requests.size())];
        static const Json timeouts[] = {0, -1, 1, 2147483648LL, 1e300, "soon"};
        set_pointer(s[k], "/payload/timeout", timeouts[pick(rng, std::size(timeouts))]);
        return "structure: request timeout in step " + std::to_string(k);
      }
    }
  }

  std::string auth(Rng& rng, std::vector<Step>& s) const override {
    auto signed_steps = text_steps_with(s, "\"agentprotocol/");
    if (signed_steps.empty()) return {};
    const std::size_t i = signed_steps[pick(rng, signed_steps.size())];
    static const char* modes[] = {"none", "bad", "other-key", "tamper-after", "noncanonical", "impersonate"};
    const std::string mode = modes[pick(rng, std::size(modes))];
    if (mode == "impersonate") {
      // Claims to be the other agent; signed with its own key, so the signature cannot verify.
      set_pointer(s[i], "/from/agentId", s[i].conn == "a" ? "${b}" : "${a}");
      return "auth: from.agentId of another agent in step " + std::to_string(i);
    }
    s[i].sign = mode;
    return "auth: signature " + mode + " in step " + std::to_string(i);
  }

  void begin(Exec& exec, const TargetView& target) const override {
    for (const char* label : {"a", "b", "c", "other"}) {
      auto key = rotating_identity();
      if (!key) continue;
      if (std::string_view(label) != "other") exec.vars[label] = ap::agent_id(key->public_key());
      exec.keys.emplace(label, std::move(*key));
    }
    exec.vars["peer"] = target.config.setting("peer_agent_id", "unknown-peer");
    exec.vars["path.ws"] = target.config.path("ws");
    exec.vars["path.http"] = target.config.path("http");
  }

  std::string finish_text(Exec& exec, const Step& step, std::string payload) const override {
    if (step.sign.empty()) return payload;
    Json j = parse_loose(payload);
    auto key = exec.keys.find(step.sign == "other-key" ? "other" : step.conn);
    if (j.is_discarded() || !j.is_object() || key == exec.keys.end()) return payload;
    j.erase("signature");
    if (step.sign == "none") return j.dump();
    if (step.sign == "noncanonical") {
      // Signed over an indented serialization instead of the RFC 8785 form.
      auto sig = key->second.sign(j.dump(1));
      if (sig) j["signature"] = crypto::base64_encode(*sig);
      return j.dump();
    }
    std::string base;
    auto s = ap::sign(j, key->second, base);
    if (!s) return payload;
    Json out = std::move(*s);
    if (step.sign == "valid") {
      std::string text = out.dump();
      // What sent() needs to know this signature verifies without verifying it (below).
      exec.state["own"][text] = Json{{"base", std::move(base)}, {"agent", ap::agent_id(key->second.public_key())},
                                     {"signature", out["signature"]}};
      return text;
    }
    if (step.sign == "bad") {
      auto raw = crypto::base64_decode(out["signature"].get<std::string>());
      if (raw && !raw->empty()) {
        (*raw)[raw->size() / 2] = static_cast<char>((*raw)[raw->size() / 2] ^ 0x01);
        out["signature"] = crypto::base64_encode(*raw);
      }
    } else if (step.sign == "tamper-after") {
      if (out.contains("payload") && out["payload"].is_object()) out["payload"]["tampered"] = true;
      else out["tampered"] = true;
    }
    return out.dump();
  }

  void connected(Exec& exec, ConnRecord& c, const Step&) const override { c.id = exec.id_of(c.label); }

  void sent(Exec& exec, ConnRecord& c, const std::string& payload) const override {
    // Not JSON at all (a byte-order mark included): refusing or ignoring it are both fine.
    // Read once, strictly, for all of this (verify_text and decode read the same way).
    auto object = plain_object(payload);
    if (!object) return;
    // For isolation: every correlationId this agent asked the peer under, valid request or not
    // (a lenient peer answers a request we hold broken; the answer still reached its asker).
    if (member_string(*object, "type") == "request") {
      if (const std::string id = string_at(*object, {"payload", "correlationId"}); !id.empty()) c.expect["asked"][id] = true;
    }
    if (signed_here_intact(exec, payload, *object)) {
      // Verifies: fall through to what a verified message owes.
    } else if (auto verified = ap::verify(*object); !verified) {
      const std::string code(verified.error().code());
      // Only a present signature that fails is owed INVALID_SIGNATURE by name; a missing one
      // (signing is a SHOULD) and unusable messages are owed an error.
      const bool present_but_bad = verified.error().reason == ap::SignatureFailure::signature_mismatch ||
                                   verified.error().reason == ap::SignatureFailure::signature_bad_base64 ||
                                   verified.error().reason == ap::SignatureFailure::signature_wrong_length;
      owe_error(c, payload, present_but_bad ? code : "");
      return;
    }
    auto decoded = profile_of(Protocol::agentprotocol).check(std::move(*object));
    if (!decoded) {
      owe_error(c, payload);
      return;
    }
    const Json& m = decoded->value;
    const Json to = m.value("to", Json::object());
    if (at_path(to, {"broadcast"}) == true) return;
    const std::string target = string_at(to, {"agentId"});
    if (target == exec.id_of("peer")) return;
    // Whether the target is bound when the relay handles this frame depends on how the relay
    // interleaves this connection's frames with the target's: an agent of the session may or
    // may not get it (no expectation either way), anyone else must not exist.
    bool known = false;
    for (const char* label : {"a", "b", "c"}) known = known || target == exec.id_of(label);
    if (!known) {
      owe_error(c, payload, "", "unknown agent");
      return;
    }
    exec.state["relayed"][payload] = target;
  }

  static std::vector<Json> errors_from_peer(const Exec& exec, const ConnRecord& c) {
    std::vector<Json> out;
    for (const auto& e : c.events) {
      auto j = event_object(e);
      if (j && member_string(*j, "type") == "error" && string_at(*j, {"from", "agentId"}) == exec.id_of("peer")) {
        out.push_back(std::move(*j));
      }
    }
    return out;
  }

  bool satisfied(const Exec& exec) const override {
    return owed_errors_arrived(exec, [&](const ConnRecord& c) { return errors_from_peer(exec, c); });
  }

  std::optional<Trip> judge(const Exec& exec) const override {
    static const OwedErrorRule rule{"a broken or unverifiable message drew no error message", "INVALID_SIGNATURE", {"INVALID_SIGNATURE"},
                                    "a message with a bad signature was not refused with INVALID_SIGNATURE"};
    if (auto trip = judge_owed_errors(exec, [&](const ConnRecord& c) { return errors_from_peer(exec, c); }, error_code, rule)) return trip;
    // Isolation: what reached an agent from someone other than the peer was relayed to it, and
    // what the peer answered under a correlationId reached an agent that asked under it.
    const Json relayed = exec.state.value("relayed", Json::object());
    for (const auto& c : exec.conns) {
      for (const auto& e : c.events) {
        auto j = event_object(e);
        if (!j) continue;
        if (string_at(*j, {"from", "agentId"}) == exec.id_of("peer")) {
          const std::string type = member_string(*j, "type");
          const std::string id = string_at(*j, {"payload", "correlationId"});
          // Over HTTP the answer is the body of this connection's own POST: it answers its sender
          // whatever the request looked like after the mutations, so it never strays.
          if (c.clean && !c.http && type == "response" && !id.empty() && !c.expect.value("asked", Json::object()).contains(id)) {
            return Trip{"isolation", "a response reached an agent that did not send its request",
                        "connection " + c.label + " never asked under correlationId " + shorten(id) + ", got: " + shorten(e.data)};
          }
          continue;
        }
        const std::string detail = "connection " + c.label + " got: " + shorten(e.data);
        // A broadcast reaches every connected agent, those of other sessions (parallel jobs) too.
        if (at_path(*j, {"to", "broadcast"}) == true) continue;
        if (!relayed.contains(e.data)) {
          if (sent_untracked(exec, e.data)) continue;
          return Trip{"isolation", "a message reached an agent that no one relayed it to, or changed in transit", detail};
        }
        if (relayed[e.data] != c.id) return Trip{"isolation", "a relayed message reached an agent other than its to.agentId", detail};
      }
    }
    return std::nullopt;
  }

  std::optional<Trip> probe(const TargetView& target, const std::string&) const override {
    auto key = crypto::Ed25519PrivateKey::generate();
    if (!key) return std::nullopt;
    Json hello{{"protocol", "agentprotocol/0.1"}, {"id", proto::typed::new_uuid_v4()}, {"timestamp", proto::typed::utc_now()},
               {"from", {{"agentId", ap::agent_id(key->public_key())}, {"capabilities", {"agentprotocol:core"}}}},
               {"to", {{"agentId", target.config.setting("peer_agent_id", "unknown-peer")}, {"broadcast", false}}},
               {"type", "hello"}, {"payload", {{"version", "0.1"}, {"features", {"signed-messages"}}}}};
    auto signed_hello = ap::sign(hello, *key);
    if (!signed_hello) return std::nullopt;
    if (!target.config.offers("ws")) {
      // HTTP only: the hello is a POST, the peer's hello its answer.
      auto r = probe_http(target, "POST", target.config.path("http"), signed_hello->dump());
      if (!r) return r.error();
      const Json answer = parse_loose(r->body);
      if (r->status / 100 != 2 || member_string(answer, "type") != "hello") {
        return Trip{r->status >= 500 ? "liveness" : "protocol", "probe: a signed hello posted over HTTP was not answered with a hello", std::to_string(r->status) + " " + shorten(r->body)};
      }
      return std::nullopt;
    }
    auto ws = probe_connect(target, target.config.path("ws"));
    if (!ws) return ws.error();
    (*ws)->send_text(signed_hello->dump());
    const bool answered = wait_for(**ws, [](const net::WsEvent& e) {
      auto j = event_object(e);
      return j && member_string(*j, "type") == "hello";
    }, target.probe_timeout);
    if (!answered) {
      const Trip t = probe_unanswered(**ws, target, Trip{"hang", "probe: a signed hello on a fresh connection was not answered with a hello", "no hello in time"});
      (*ws)->close(1000);
      return t;
    }
    (*ws)->close(1000);
    return std::nullopt;
  }
};

}  // namespace

const Profile& agentprotocol_profile() {
  static const AgentProtocol p;
  return p;
}

}  // namespace ac::fuzz

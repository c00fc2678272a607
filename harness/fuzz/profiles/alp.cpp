// Agent Lobby Protocol 0.2.0 (alp-0.2.0.md): HTTP registration, then the authenticated
// WebSocket (`?token=&agent_id=`), then messages in the §5 envelope.
//   seed       a, b and c register; a and b connect and send REGISTER_CLIENT (b offers
//              fuzz.echo); a discovers, sends b a DIRECT_MESSAGE and invokes fuzz.echo, b answers
//              (in_progress, then success), a pings the lobby; sometimes b leaves, c connects and
//              a writes to c
//   structure  other protocol_versions, unknown and custom message types, unknown, lobby and
//              BROADCAST_ALL receivers, unadvertised capabilities and versions, deeply nested
//              input_data
//   auth       connections with no, a forged or another agent's token, or another agent_id;
//              a sender_id claiming another agent
//   protocol   every frame the §5/§7 schemas reject, every message claiming another sender and
//              every message to an unknown receiver draws a PROTOCOL_ERROR on that connection
//              (the connection stays usable); a rejected frame whose message_id is readable is
//              named in offending_message_id; a connection with bad credentials is refused
//   isolation  a routed message reaches only its receiver_id, unchanged in message_id, and
//              its sender_id is the connection that sent it
//   probe      register, connect, PING: a PONG comes back
#include <set>
#include <thread>

#include "harness/fuzz/profiles/profiles.hpp"

namespace ac::fuzz {
namespace {

const std::set<std::string> kRouted = {"DIRECT_MESSAGE", "INVOKE_CAPABILITY_REQUEST", "INVOKE_CAPABILITY_RESPONSE"};

Json envelope(const std::string& from, const std::string& to, const char* type, Json payload, int id) {
  return Json{{"message_id", "${uuid:" + std::to_string(id) + "}"},
              {"protocol_version", "${version}"},
              {"sender_id", "${" + from + "}"},
              {"receiver_id", to == "lobby" ? std::string("${lobby_id}") : "${" + to + "}"},
              {"message_type", type},
              {"payload", std::move(payload)},
              {"timestamp", "${now}"}};
}

Step register_step(const std::string& who) {
  return http_step(who, "POST", "${path.register}",
                   Json{{"agent_id", "${" + who + "}"}, {"agent_type", "agentconform-fuzz"}, {"api_key", "${api_key}"}},
                   {{who + ".token", "/auth_token"}, {"lobby_id", "/lobby_id"}});
}

Step connect_as(const std::string& label, const std::string& token_of, const std::string& id_of) {
  return connect_step(label, "${path.connect}?token=${" + token_of + ".token}&agent_id=${" + id_of + "}");
}

Json echo_capability() {
  return Json{{"name", "fuzz.echo"},
              {"capability_version", "1.0.0"},
              {"description", "echoes text"},
              {"input_schema", {{"type", "object"}, {"properties", {{"text", {{"type", "string"}, {"maxLength", 100}}}}}}},
              {"output_schema", {{"type", "object"}}},
              {"keywords", {"echo", "fuzz"}}};
}

class Alp final : public Profile {
 public:
  Protocol protocol() const override { return Protocol::alp; }

  std::vector<Step> seed_flow(Rng& rng, const Scope& /*scope: one role, one transport*/) const override {
    std::vector<Step> s{register_step("a"), register_step("b"), register_step("c"), connect_as("a", "a", "a"), connect_as("b", "b", "b")};
    s.push_back(text_step("a", envelope("a", "lobby", "REGISTER_CLIENT",
                                        {{"capabilities", Json::array()}, {"agent_version", "1.0.0"}, {"sdk_version", "fuzz-0.1"}}, 1)));
    s.push_back(text_step("b", envelope("b", "lobby", "REGISTER_CLIENT",
                                        {{"capabilities", Json::array({echo_capability()})}, {"agent_version", "1.0.0"}, {"sdk_version", "fuzz-0.1"}}, 2)));
    Json discover = envelope("a", "lobby", "DISCOVER_CAPABILITIES",
                             {{"capability_filter", {{"name", "fuzz.echo"}, {"version_match", "1.x"}, {"keywords", {"echo"}}}}, {"max_results", 5}}, 3);
    discover["conversation_id"] = "${uuid:30}";
    s.push_back(text_step("a", discover));
    // 1-3 rounds of messages and invocations between the registered agents: a session reuses
    // its registrations and connections instead of paying for new ones every few messages
    // (issue 16). Round r's message ids are ${uuid:N} with N = 4..8 plus 40 per round after the first.
    const int rounds = 1 + static_cast<int>(pick(rng, 3));
    for (int r = 1; r <= rounds; ++r) {
      const int id = 40 * (r - 1);
      const std::string uuid_of_invoke = "${uuid:" + std::to_string(5 + id) + "}";
      const std::string conversation = "${uuid:" + std::to_string(31 + id) + "}";
      s.push_back(text_step("a", envelope("a", "b", "DIRECT_MESSAGE", {{"content_type", "text/plain"}, {"content", "hello b"}}, 4 + id)));
      Json invoke = envelope("a", "b", "INVOKE_CAPABILITY_REQUEST",
                             {{"capability_name", "fuzz.echo"}, {"capability_version", "1.0.0"}, {"input_data", {{"text", "ping"}}}}, 5 + id);
      invoke["conversation_id"] = conversation;
      s.push_back(text_step("a", invoke));
      Json progress = envelope("b", "a", "INVOKE_CAPABILITY_RESPONSE",
                               {{"request_message_id", uuid_of_invoke}, {"status", "in_progress"}, {"progress_info", {{"percentage", 50}, {"description", "half"}}}}, 6 + id);
      progress["conversation_id"] = conversation;
      s.push_back(text_step("b", progress));
      Json done = envelope("b", "a", "INVOKE_CAPABILITY_RESPONSE",
                           {{"request_message_id", uuid_of_invoke}, {"status", "success"}, {"output_data", {{"text", "ping"}}}}, 7 + id);
      done["conversation_id"] = conversation;
      s.push_back(text_step("b", done));
      s.push_back(text_step("a", envelope("a", "lobby", "PING", {{"nonce", "n-" + std::to_string(r)}}, 8 + id)));
    }
    if (chance(rng, 0.5)) {
      // b leaves, c arrives, a writes to c.
      s.push_back(text_step("b", envelope("b", "lobby", "UNREGISTER_CLIENT", {{"reason", "shutting_down"}}, 9)));
      s.push_back(close_step("b"));
      s.push_back(connect_as("c", "c", "c"));
      s.push_back(text_step("c", envelope("c", "lobby", "REGISTER_CLIENT",
                                          {{"capabilities", Json::array()}, {"agent_version", "1.0.0"}, {"sdk_version", "fuzz-0.1"}}, 10)));
      s.push_back(text_step("a", envelope("a", "c", "DIRECT_MESSAGE", {{"content_type", "application/json"}, {"content", {{"k", 1}}}}, 11)));
    }
    return s;
  }

  std::string structure(Rng& rng, std::vector<Step>& s) const override {
    auto messages = text_steps_with(s, "\"message_type\"");
    if (messages.empty()) return {};
    const std::size_t i = messages[pick(rng, messages.size())];
    const std::string at = " in step " + std::to_string(i);
    switch (pick(rng, 9)) {
      case 8: {
        // Identifier collision: c invokes b's capability with the message_id and conversation_id
        // a's request uses, while a's is open (responses must still reach a, and c's answer c).
        auto invokes = text_steps_with(s, "INVOKE_CAPABILITY_REQUEST");
        if (invokes.empty()) return {};
        const std::size_t k = invokes[0] + 1;
        Json clash = envelope("c", "b", "INVOKE_CAPABILITY_REQUEST",
                              {{"capability_name", "fuzz.echo"}, {"capability_version", "1.0.0"}, {"input_data", {{"text", "from c"}}}}, 5);
        clash["conversation_id"] = "${uuid:31}";
        Json answer = envelope("b", "c", "INVOKE_CAPABILITY_RESPONSE",
                               {{"request_message_id", "${uuid:5}"}, {"status", "success"}, {"output_data", {{"text", "for c"}}}}, 12);
        answer["conversation_id"] = "${uuid:31}";
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(std::min(k, s.size())),
                 {connect_as("c", "c", "c"),
                  text_step("c", envelope("c", "lobby", "REGISTER_CLIENT",
                                          {{"capabilities", Json::array()}, {"agent_version", "1.0.0"}, {"sdk_version", "fuzz-0.1"}}, 13)),
                  text_step("c", clash), text_step("b", answer)});
        return "structure: c reuses a's message_id and conversation_id at once (step " + std::to_string(k) + ")";
      }
      case 0: {
        static const Json versions[] = {"0.1.0", "0.3.0", "1.0.0", "0.2", "abc", "0.2.0-beta", "0.2.1", "00.2.0"};
        set_member(s[i], "protocol_version", versions[pick(rng, std::size(versions))]);
        return "structure: protocol_version" + at;
      }
      case 1: {
        static const Json types[] = {"X_FUZZ_CUSTOM", "direct_message", "REGISTER_CLIENT_ACK", "CAPABILITIES_FOUND", "LOBBY_BROADCAST",
                                     "PONG", "PROTOCOL_ERROR", ""};
        set_member(s[i], "message_type", types[pick(rng, std::size(types))]);
        return "structure: message_type" + at;
      }
      case 2: {
        static const Json receivers[] = {"nobody-1", "BROADCAST_ALL", "${lobby_id}", "${c}", ""};
        set_member(s[i], "receiver_id", receivers[pick(rng, std::size(receivers))]);
        return "structure: receiver_id" + at;
      }
      case 3: {
        auto invokes = text_steps_with(s, "INVOKE_CAPABILITY_REQUEST");
        if (invokes.empty()) return {};
        const std::size_t k = invokes[pick(rng, invokes.size())];
        if (chance(rng, 0.5)) set_pointer(s[k], "/payload/capability_version", chance(rng, 0.5) ? Json("2.0.0") : Json("1.0"));
        else set_pointer(s[k], "/payload/capability_name", "fuzz.missing");
        return "structure: unadvertised capability in step " + std::to_string(k);
      }
      case 4: {
        // Deeply nested input_data: a free-form object the lobby validates against input_schema.
        auto invokes = text_steps_with(s, "INVOKE_CAPABILITY_REQUEST");
        if (invokes.empty()) return {};
        const std::size_t k = invokes[pick(rng, invokes.size())];
        static const std::size_t depths[] = {8, 31, 64, 100};
        Json nested = {{"text", "deep"}};
        const std::size_t depth = depths[pick(rng, std::size(depths))];
        for (std::size_t d = 1; d < depth; ++d) nested = Json{{"n", std::move(nested)}};
        set_pointer(s[k], "/payload/input_data", nested);
        return "structure: input_data nested " + std::to_string(depth) + " deep in step " + std::to_string(k);
      }
      case 5: {
        // A response to a request that was never made, or from the wrong agent.
        auto responses = text_steps_with(s, "INVOKE_CAPABILITY_RESPONSE");
        if (responses.empty()) return {};
        const std::size_t k = responses[pick(rng, responses.size())];
        if (chance(rng, 0.5)) set_pointer(s[k], "/payload/request_message_id", "${uuid:99}");
        else s[k].conn = "c";
        return "structure: stray INVOKE_CAPABILITY_RESPONSE in step " + std::to_string(k);
      }
      case 6: {
        // Out of state: a message to b after b left (closed, or never to come back).
        auto to_b = text_steps_with(s, "\"receiver_id\":\"${b}\"");
        if (to_b.empty()) return {};
        std::size_t left = s.size();
        for (std::size_t k = 0; k < s.size(); ++k) {
          if (s[k].conn == "b" && (s[k].kind == Step::Kind::close || s[k].kind == Step::Kind::drop)) left = k;
        }
        if (left == s.size()) {
          left = std::min(s.size(), to_b.back() + 1 + pick(rng, s.size() - to_b.back()));
          s.insert(s.begin() + static_cast<std::ptrdiff_t>(left), close_step("b"));
        }
        Step late = s[to_b[pick(rng, to_b.size())]];
        const std::size_t late_at = left + 1 + pick(rng, s.size() - left);
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(late_at), std::move(late));
        return "structure: message to b after b left (step " + std::to_string(late_at) + ")";
      }
      default: {
        // The same message_id twice (idempotency), or a conversation_id dropped.
        Step copy = s[i];
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(i + 1 + pick(rng, s.size() - i)), std::move(copy));
        return "structure: message repeated with its message_id" + at;
      }
    }
  }

  std::string auth(Rng& rng, std::vector<Step>& s) const override {
    if (chance(rng, 0.4)) {
      auto messages = text_steps_with(s, "\"sender_id\"");
      if (messages.empty()) return {};
      const std::size_t i = messages[pick(rng, messages.size())];
      set_member(s[i], "sender_id", s[i].conn == "b" ? "${a}" : "${b}");
      return "auth: sender_id of another agent in step " + std::to_string(i);
    }
    static const char* forms[] = {"${path.connect}?agent_id=${a}",
                                  "${path.connect}?token=forged-token-0000000000000000000000000000000&agent_id=${a}",
                                  "${path.connect}?token=${b.token}&agent_id=${a}",
                                  "${path.connect}?token=${a.token}&agent_id=${b}",
                                  "${path.connect}?token=${a.token}",
                                  "${path.connect}?token=${a.token}x&agent_id=${a}",
                                  "${path.connect}?token=&agent_id=${a}"};
    const std::size_t form = pick(rng, std::size(forms));
    const std::size_t at = std::min(s.size(), 3 + pick(rng, s.size()));
    Step bad = connect_step("h", forms[form]);
    Json msg = envelope("a", "b", "DIRECT_MESSAGE", {{"content_type", "text/plain"}, {"content", "from h"}}, 40);
    s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), {bad, text_step("h", msg)});
    return "auth: connection with bad credentials (" + std::to_string(form) + ") at step " + std::to_string(at);
  }

  void begin(Exec& exec, const TargetView& target) const override {
    for (const char* label : {"a", "b", "c"}) exec.vars[label] = exec.prefix + label;
    exec.vars["path.connect"] = target.config.path("connect");
    exec.vars["path.register"] = target.config.path("register");
    exec.vars["api_key"] = target.config.setting("api_key");
    exec.vars["version"] = target.config.setting("protocol_version", "0.2.0");
    if (const std::string lobby = target.config.setting("lobby_id"); !lobby.empty()) exec.vars["lobby_id"] = lobby;
  }

  void connected(Exec& exec, ConnRecord& c, const Step& step) const override {
    // Valid credentials: a token placeholder and an agent_id placeholder of the same agent.
    const auto token = step.data.find("token=${");
    const auto agent = step.data.find("agent_id=${");
    std::string token_of, id_of;
    if (token != std::string::npos) token_of = step.data.substr(token + 8, step.data.find(".token}", token) - token - 8);
    if (agent != std::string::npos) id_of = step.data.substr(agent + 11, step.data.find('}', agent) - agent - 11);
    const bool valid = !token_of.empty() && token_of == id_of && step.data.find(".token}x") == std::string::npos;
    c.id = exec.id_of(id_of);
    if (!valid && c.ws) c.expect["accepted_bad_credentials"] = step.data;
    if (!valid) c.id.clear();  // what it sends proves nothing about anyone
  }

  void sent(Exec& exec, ConnRecord& c, const std::string& payload) const override {
    if (c.id.empty()) return;
    Json& errors = c.expect["errors"];
    if (!errors.is_array()) errors = Json::array();
    // Not JSON at all (a byte-order mark included): refusing or ignoring it are both fine.
    auto object = plain_object(payload);
    if (!object) return;
    auto decoded = profile_of(Protocol::alp).check(std::move(*object));
    if (!decoded) {
      Json o{{"why", decoded.error().code + " at " + decoded.error().pointer}, {"frame", shorten(payload)}};
      if (!decoded.error().message_id.empty()) o["message_id"] = decoded.error().message_id;
      errors.push_back(std::move(o));
      return;
    }
    const Json& m = decoded->value;
    const std::string type = member_string(m, "message_type");
    if (member_string(m, "sender_id") != c.id) {
      errors.push_back({{"why", "sender_id of another agent"}, {"frame", shorten(payload)}});
      return;
    }
    if (!kRouted.count(type)) return;
    const std::string to = member_string(m, "receiver_id");
    bool known = to == exec.id_of("lobby_id") || to == "BROADCAST_ALL";
    for (const char* label : {"a", "b", "c"}) known = known || to == exec.id_of(label);
    if (!known) errors.push_back({{"why", "unknown receiver"}, {"frame", shorten(payload)}});
    // For isolation: who sent which message_id to whom (two agents may reuse one id).
    Json& by_id = exec.state["sent"][member_string(m, "message_id")];
    if (!by_id.is_array()) by_id = Json::array();
    by_id.push_back({{"from", c.id}, {"to", to}});
  }

  static std::vector<Json> protocol_errors(const ConnRecord& c) {
    std::vector<Json> out;
    for (const auto& e : c.events) {
      if (auto j = event_object(e); j && member_string(*j, "message_type") == "PROTOCOL_ERROR") out.push_back(std::move(*j));
    }
    return out;
  }

  // The first owed PROTOCOL_ERROR that has not come. An error naming an offending_message_id
  // answers that message; the others answer, in order, the messages still unanswered. The trip
  // names the message it is about, never an error that answered another one.
  static std::optional<Trip> missing(const ConnRecord& c, const std::vector<Json>& errors) {
    const Json& owed = c.expect["errors"];
    std::vector<int> answer(owed.size(), -1);  // the error that answers each owed message
    std::vector<bool> used(errors.size(), false);
    for (std::size_t i = 0; i < owed.size(); ++i) {
      if (!owed[i].contains("message_id")) continue;
      for (std::size_t j = 0; j < errors.size() && answer[i] < 0; ++j) {
        if (!used[j] && at_path(errors[j], {"payload", "offending_message_id"}) == owed[i]["message_id"]) {
          used[j] = true;
          answer[i] = static_cast<int>(j);
        }
      }
    }
    for (std::size_t i = 0; i < owed.size(); ++i) {
      for (std::size_t j = 0; j < errors.size() && answer[i] < 0; ++j) {
        if (!used[j]) {
          used[j] = true;
          answer[i] = static_cast<int>(j);
        }
      }
      if (answer[i] < 0) {
        return Trip{"protocol", "an invalid message drew no PROTOCOL_ERROR",
                    "on connection " + c.label + ": " + dump_text(owed[i]) + " (" + std::to_string(owed.size()) + " invalid message(s), " +
                        std::to_string(errors.size()) + " PROTOCOL_ERROR(s))"};
      }
    }
    for (std::size_t i = 0; i < owed.size(); ++i) {
      if (owed[i].contains("message_id") && at_path(errors[static_cast<std::size_t>(answer[i])], {"payload", "offending_message_id"}) != owed[i]["message_id"]) {
        return Trip{"protocol", "PROTOCOL_ERROR does not name the offending message_id",
                    "on connection " + c.label + ": " + dump_text(owed[i]) + "; answered by " + dump_text(errors[static_cast<std::size_t>(answer[i])])};
      }
    }
    return std::nullopt;
  }

  bool satisfied(const Exec& exec) const override {
    for (const auto& c : exec.conns) {
      if (!c.clean || c.closed || !c.expect.contains("errors")) continue;
      if (missing(c, protocol_errors(c))) return false;
    }
    return true;
  }

  std::optional<Trip> judge(const Exec& exec) const override {
    for (const auto& c : exec.conns) {
      if (c.expect.contains("accepted_bad_credentials") && !c.closed) {
        return Trip{"protocol", "WebSocket accepted with missing, forged or foreign credentials",
                    "connect " + c.expect["accepted_bad_credentials"].get<std::string>()};
      }
      if (!c.clean || !c.expect.contains("errors")) continue;
      const auto errors = protocol_errors(c);
      if (auto trip = missing(c, errors)) return trip;
      bool expired = false;  // AUTH_TOKEN_EXPIRED, then close 1008: the token's lifetime ended
      for (const auto& e : errors) expired = expired || string_at(e, {"payload", "error", "code"}) == "AUTH_TOKEN_EXPIRED";
      if (c.closed && c.close_code != 1000 && !(expired && c.close_code == 1008)) {
        return Trip{"protocol", "the lobby closed a connection over an invalid message",
                    "close " + std::to_string(c.close_code) + " on " + c.label};
      }
    }
    return isolation(exec);
  }

  std::optional<Trip> isolation(const Exec& exec) const {
    const Json sent = exec.state.value("sent", Json::object());
    for (const auto& c : exec.conns) {
      for (const auto& e : c.events) {
        auto j = event_object(e);
        if (!j || !kRouted.count(member_string(*j, "message_type"))) continue;
        const std::string sender = member_string(*j, "sender_id");
        if (sender == exec.id_of("lobby_id")) continue;  // the lobby's own answers (invoke_error_format: response)
        const std::string detail = "connection " + c.label + " (" + c.id + ") got a message for " + member_string(*j, "receiver_id") +
                                   " from " + sender + ": " + shorten(e.data);
        if (member_string(*j, "receiver_id") != c.id) return Trip{"isolation", "a message delivered to an agent it was not addressed to", detail};
        const std::string id = member_string(*j, "message_id");
        if (!sent.contains(id)) {
          // Not something a clean connection of this session sent to c: a spoofed, replayed or
          // corrupted delivery, unless it came from a connection whose frames are not tracked, or
          // the sender sent it as text the bookkeeping skips (a byte-order mark before the JSON,
          // which a lenient lobby reads and forwards: a false finding at 8 jobs, 2026-11-26).
          bool untracked = sent_untracked(exec, e.data);
          for (const auto& o : exec.conns) {
            if (o.id != sender) continue;
            untracked = untracked || !o.clean;
            for (const auto& t : o.sent) untracked = untracked || (!plain_json_object(t) && !id.empty() && t.find(id) != std::string::npos);
          }
          if (!untracked) return Trip{"isolation", "a delivered message that no one sent to this agent", detail};
          continue;
        }
        bool to_me = false, from_sender = false;
        for (const auto& x : sent[id]) {
          const bool mine = x.value("to", "") == c.id;
          to_me = to_me || mine;
          from_sender = from_sender || (mine && x.value("from", "") == sender);
        }
        if (!to_me) return Trip{"isolation", "a message delivered to an agent it was not addressed to", detail};
        if (!from_sender) return Trip{"isolation", "a delivered message carries a sender_id other than its sender", detail};
      }
    }
    return std::nullopt;
  }

  std::optional<Trip> probe(const TargetView& target, const std::string& salt) const override {
    const std::string id = "probe" + salt;
    Json body{{"agent_id", id}, {"agent_type", "agentconform-probe"}, {"api_key", target.config.setting("api_key")}};
    auto reg = probe_http(target, "POST", target.config.path("register"), body.dump());
    // 503 with retryable: a full registry under the stream of sessions; a client retries.
    for (int retry = 0; reg && reg->status == 503 && retry < 10; ++retry) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      reg = probe_http(target, "POST", target.config.path("register"), body.dump());
    }
    if (!reg) return reg.error();
    const Json answer = parse_loose(reg->body);
    if (reg->status / 100 != 2 || !answer.is_object() || !answer.contains("auth_token") || !answer["auth_token"].is_string()) {
      // (An answer is life: only a server error or a refusal for capacity says it is not well.)
      return Trip{reg->status >= 500 || reg->status == 429 ? "liveness" : "protocol", "probe: registration of a fresh agent failed", std::to_string(reg->status) + " " + shorten(reg->body)};
    }
    const std::string lobby = answer.value("lobby_id", target.config.setting("lobby_id"));
    auto ws = probe_connect(target, target.config.path("connect") + "?token=" + answer["auth_token"].get<std::string>() + "&agent_id=" + id);
    if (!ws) return ws.error();
    const std::string nonce = "probe-" + salt;
    Json ping{{"message_id", proto::typed::new_uuid_v4()}, {"protocol_version", target.config.setting("protocol_version", "0.2.0")},
              {"sender_id", id}, {"receiver_id", lobby}, {"message_type", "PING"}, {"payload", {{"nonce", nonce}}},
              {"timestamp", proto::typed::utc_now()}};
    (*ws)->send_text(ping.dump());
    const bool pong = wait_for(**ws, [&](const net::WsEvent& e) {
      auto j = event_object(e);
      return j && member_string(*j, "message_type") == "PONG";  // (whether it echoes the nonce is a rule, for the suites)
    }, target.probe_timeout);
    if (!pong) {
      const Trip t = probe_unanswered(**ws, target, Trip{"hang", "probe: a PING on a fresh session got no PONG", "no PONG in time"});
      (*ws)->close(1000);
      return t;
    }
    (*ws)->close(1000);
    return std::nullopt;
  }
};

}  // namespace

const Profile& alp_profile() {
  static const Alp p;
  return p;
}

}  // namespace ac::fuzz

// Chopsticks 1.0.0 (chopsticks-1.0.0.md): agents say hello to the controller over /chopsticks/ws.
//   seed       hello (protocolVersion 1.0.0), guilds, sometimes an event add, a heartbeat hello,
//              sometimes a second agent
//   structure  wrong, missing, mistyped or prefixed protocolVersion values
//   auth       a second connection says hello with the agentId of a live agent (takeover)
//   protocol   a hello whose protocolVersion is missing or unsupported draws an error frame and
//              close 1008 ("Missing/Incompatible protocolVersion: Closed with code 1008"), never
//              acceptance, silence or another code; a takeover hello is refused the same way
//   probe      a valid hello on a fresh connection, then a ping: answered, and no close
#include "harness/fuzz/profiles/profiles.hpp"

namespace ac::fuzz {
namespace {

constexpr const char* kVersion = "1.0.0";

Json hello(const std::string& who, const std::string& version = kVersion) {
  return Json{{"type", "hello"}, {"protocolVersion", version}, {"agentId", "${" + who + "}"}, {"botUserId", nullptr},
              {"tag", nullptr}, {"ready", true}, {"guildIds", Json::array({"g1"})}, {"poolId", "pool-1"}};
}

class Chopsticks final : public Profile {
 public:
  Protocol protocol() const override { return Protocol::chopsticks; }

  std::vector<Step> seed_flow(Rng& rng, const Scope& /*scope: one role, one transport*/) const override {
    const std::string path = "${path.ws}";
    std::vector<Step> s{connect_step("a", path), text_step("a", hello("a")),
                        text_step("a", Json{{"type", "guilds"}, {"guildIds", Json::array({"g1", "g2"})}})};
    if (chance(rng, 0.5)) {
      s.push_back(text_step("a", Json{{"type", "event"}, {"event", "add"}, {"agentId", "${a}"}, {"guildId", "g1"},
                                      {"voiceChannelId", "v1"}, {"channelId", "v1"}, {"kind", "music"}, {"ok", true}}));
    }
    s.push_back(text_step("a", hello("a")));  // a heartbeat
    if (chance(rng, 0.5)) {
      s.push_back(connect_step("b", path));
      s.push_back(text_step("b", hello("b")));
    }
    return s;
  }

  std::string structure(Rng& rng, std::vector<Step>& s) const override {
    static const Json versions[] = {"0.9.0", "2.0.0", "1.0", "", "v1.0.0", 1, nullptr, Json::array({"1.0.0"}),
                                    "1.0.0x", "1.0.0.0", std::string("1.0.0\0", 6), "1.0.0-beta", "1.0.0 ", "01.0.0"};
    std::vector<std::size_t> hellos;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i].kind == Step::Kind::text && s[i].data.find("\"hello\"") != std::string::npos) hellos.push_back(i);
    }
    if (hellos.empty()) return {};
    const std::size_t i = hellos[pick(rng, hellos.size())];
    const bool drop = chance(rng, 0.1);
    if (!set_member(s[i], "protocolVersion", drop ? Json(Json::value_t::discarded) : versions[pick(rng, std::size(versions))])) return {};
    return "structure: " + std::string(drop ? "missing" : "wrong") + " protocolVersion in step " + std::to_string(i);
  }

  std::string auth(Rng& rng, std::vector<Step>& s) const override {
    // A second connection claims a's agentId while a is live.
    const std::string who = chance(rng, 0.5) ? "c" : "b";
    const std::size_t at = std::min(s.size(), 2 + pick(rng, s.size()));  // after a's connect and hello
    s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), {connect_step(who, "${path.ws}"), text_step(who, hello("a"))});
    return "auth: connection " + who + " says hello as agent a (takeover)";
  }

  void begin(Exec& exec, const TargetView& target) const override {
    for (const char* label : {"a", "b", "c"}) exec.vars[label] = exec.prefix + label;
    exec.vars["path.ws"] = target.config.path("ws");
  }

  void sent(Exec& exec, ConnRecord& c, const std::string& payload) const override {
    auto j = strict_object(payload);
    if (!j || member_string(*j, "type") != "hello" || c.expect.contains("reject")) return;
    auto v = j->find("protocolVersion");
    if (v == j->end() || !v->is_string() || v->get<std::string>() != kVersion) {
      c.expect["reject"] = payload;
      c.expect["why"] = "bad-version hello";
      return;
    }
    // A well-formed hello with a good version: registers the agent, or takes over a live one.
    if (!profile_of(Protocol::chopsticks).check(*j)) return;
    const std::string agent = member_string(*j, "agentId");
    if (agent.empty()) return;
    Json& owners = exec.state["owner"];
    // An owner whose connection the session ended no longer holds the id: this hello is a
    // reconnect, not a takeover.
    const ConnRecord* owner = owners.contains(agent) ? exec.conn(owners[agent].get<std::string>()) : nullptr;
    if (owner != nullptr && owner != &c && owner->open()) {
      c.expect["reject"] = payload;
      c.expect["why"] = "takeover hello";
      c.expect["owner"] = owners[agent];
    } else if (!c.expect.contains("agent")) {
      owners[agent] = c.label;
      c.expect["agent"] = agent;
    }
  }

  // A takeover hello is judged only when the owner's connection stayed up the whole session (its
  // agent was live when the takeover hello arrived) and both connections were clean.
  static bool judged(const Exec& exec, const ConnRecord& c) {
    if (!c.expect.contains("reject")) return false;
    if (c.expect["why"] != "takeover hello") return true;
    const ConnRecord* owner = exec.conn(c.expect["owner"].get<std::string>());
    return owner != nullptr && owner->open() && owner->clean && c.clean;
  }

  // The executor waits for every judged rejection (and no longer: a hello that is not judged
  // may be legitimately accepted, and waiting for its close would cost the whole deadline).
  bool satisfied(const Exec& exec) const override {
    for (const auto& c : exec.conns) {
      if (judged(exec, c) && !c.closed) return false;
    }
    return true;
  }

  std::optional<Trip> judge(const Exec& exec) const override {
    for (const auto& c : exec.conns) {
      if (!judged(exec, c)) continue;
      const std::string why = c.expect["why"].get<std::string>();
      const std::string frame = shorten(c.expect["reject"].get<std::string>());
      if (!c.clean) {
        // Framing garbage sent afterwards may fail the connection first (1002/1007/1009):
        // then only silence counts.
        if (!c.closed) return Trip{"protocol", why + " neither rejected nor closed", "hello: " + frame};
        continue;
      }
      bool error_seen = false;
      for (const auto& e : c.events) {
        if (auto j = event_object(e); j && member_string(*j, "type") == "error") error_seen = true;
      }
      if (!c.closed) return Trip{"protocol", why + " neither rejected nor closed", "hello: " + frame};
      if (c.close_code != 1008) {
        return Trip{"protocol", why + " closed with a code other than 1008", "close " + std::to_string(c.close_code) + " after hello: " + frame};
      }
      if (!error_seen) return Trip{"protocol", why + " closed without an error frame", "hello: " + frame};
    }
    return std::nullopt;
  }

  // A valid hello on a fresh connection keeps it open: the ping behind it is answered (the
  // controller handled the hello first) and no close comes. Rules stay with the oracles.
  std::optional<Trip> probe(const TargetView& target, const std::string& salt) const override {
    auto ws = probe_connect(target, target.config.path("ws"));
    if (!ws) return ws.error();
    (*ws)->send_text(Json{{"type", "hello"}, {"protocolVersion", target.config.setting("protocol_version", kVersion)},
                          {"agentId", "probe" + salt}, {"botUserId", nullptr}, {"tag", nullptr}, {"ready", true},
                          {"guildIds", Json::array()}, {"poolId", "probe"}}.dump());
    (*ws)->ping("probe");
    std::uint16_t code = 0;
    const bool answered = wait_for(**ws, [&](const net::WsEvent& e) {
      if (e.kind == ws::Event::Kind::close) code = e.close_code;
      return e.kind == ws::Event::Kind::pong;
    }, target.probe_timeout);
    (*ws)->close(1000);
    if (code != 0) return Trip{"liveness", "probe: a valid hello on a fresh connection was closed", "close " + std::to_string(code)};
    if (!answered) return Trip{"hang", "probe: a ping behind a valid hello was not answered in time", "no pong"};
    return std::nullopt;
  }
};

}  // namespace

const Profile& chopsticks_profile() {
  static const Chopsticks p;
  return p;
}

}  // namespace ac::fuzz

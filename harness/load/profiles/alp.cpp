// ALP under load: DIRECT_MESSAGEs routed by the lobby between registered agents (alp-0.2.0.md
// §7.3.1). Every agent registers over HTTP with the API key (settings.api_key, sent where
// settings.api_key_location says), connects with its token, and is known routable once the
// lobby answered a PING (settings.connect_sync "ping", the default; "none" skips it), as the
// conformance driver does. The marker travels in payload.content.
#include "harness/json/strict_reader.hpp"
#include "harness/load/profiles/common.hpp"

namespace ac::load {
namespace {

class AlpProfile final : public ProfileBase {
 public:
  explicit AlpProfile(ProfileSettings s) : ProfileBase(std::move(s)) {
    ids_.resize(agents());
    tokens_.resize(agents());
    synced_.assign(agents(), false);
    for (std::size_t i = 0; i < agents(); ++i) ids_[i] = default_id(i);
  }

  std::string agent_name(std::size_t agent) const override { return ids_[agent]; }

  Expected<bool, std::string> prepare(net::Runtime& runtime) override {
    const std::string key = target().setting("api_key");
    if (key.empty()) return unexpected(std::string("settings.api_key: the lobby's API key is needed to register the load agents"));
    const std::string where = target().setting("api_key_location", "body");
    version_ = target().setting("protocol_version", "0.2.0");
    for (std::size_t i = 0; i < agents(); ++i) {
      Json body = {{"agent_id", ids_[i]}, {"agent_type", target().setting("agent_type", "agentconform-load")}};
      net::Headers h;
      if (where == "body" || where == "both") body["api_key"] = key;
      if (where == "header" || where == "both") h.emplace("X-API-Key", key);
      auto r = post_json(runtime, "registering agent " + ids_[i], http_url("register"), body, h);
      if (!r) return unexpected(r.error());
      tokens_[i] = str_at(*r, "/auth_token");
      if (tokens_[i].empty()) return unexpected("registering agent " + ids_[i] + ": the answer has no auth_token: " + r->dump().substr(0, 200));
      if (auto id = str_at(*r, "/agent_id"); !id.empty()) ids_[i] = id;
      if (lobby_id_.empty()) lobby_id_ = str_at(*r, "/lobby_id");
    }
    if (lobby_id_.empty()) lobby_id_ = target().setting("lobby_id");
    if (lobby_id_.empty() && target().setting("connect_sync", "ping") == "ping") {
      return unexpected(std::string("settings.lobby_id: the lobby's id is unknown (its registration answers name none)"));
    }
    for (const auto& l : topology().lanes) {
      const std::string head = "\",\"protocol_version\":" + json_string(version_) + ",\"sender_id\":" + json_string(ids_[l.from]) +
                               ",\"receiver_id\":" + json_string(ids_[l.to]) + ",\"message_type\":\"DIRECT_MESSAGE\",\"timestamp\":\"";
      middle_.push_back(head);
    }
    return true;
  }

  Endpoint endpoint(std::size_t agent) const override {
    return {ws_url("connect", "token=" + percent_encode(tokens_[agent]) + "&agent_id=" + percent_encode(ids_[agent])), {}};
  }

  void on_open(std::size_t agent, Sink& sink) override {
    if (target().setting("connect_sync", "ping") != "ping") {
      std::lock_guard lock(mutex_);
      synced_[agent] = true;
      return;
    }
    const Json ping = {{"message_id", uuid_for(run_id(), 0xFFFFFF, agent)},
                       {"protocol_version", version_},
                       {"sender_id", ids_[agent]},
                       {"receiver_id", lobby_id_},
                       {"message_type", "PING"},
                       {"payload", {{"nonce", "acload-sync-" + std::to_string(agent)}}},
                       {"timestamp", now()}};
    sink.send(agent, ping.dump());
  }

  Seen on_frame(std::size_t agent, std::string_view frame, Sink&) override {
    auto j = json::parse_strict(frame);
    if (!j || !j->is_object()) return {Seen::Kind::unexpected, "frame that is not a JSON object"};
    const std::string type = j->value("message_type", std::string());
    if (type == "PROTOCOL_ERROR") {
      const std::string code = str_at(*j, "/payload/error/code");
      return {Seen::Kind::error, code.empty() ? std::string("PROTOCOL_ERROR") : code};
    }
    if (type == "PONG") {
      std::lock_guard lock(mutex_);
      synced_[agent] = true;
      return {};
    }
    if (type == "LOBBY_BROADCAST" || type == "REGISTER_CLIENT_ACK") return {};
    return {Seen::Kind::unexpected, "an unexpected " + (type.empty() ? std::string("frame") : type)};
  }

  std::optional<std::string> waiting() const override {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (bool s : synced_) n += s ? 0 : 1;
    if (n == 0) return std::nullopt;
    return std::to_string(n) + " agents without the lobby's PONG to their connect PING";
  }

  void encode(const Lane& lane, std::uint64_t seq, std::string_view marker, std::string& out) override {
    char id[36], ts[24];
    write_uuid(id, run_id(), lane.index, seq);
    write_utc_now(ts);
    out += "{\"message_id\":\"";
    out.append(id, 36);
    out += middle_[lane.index];
    out.append(ts, 24);
    out += "\",\"payload\":{\"content_type\":\"text/plain\",\"content\":\"";
    out += marker;
    out += "\"}}";
  }

  std::size_t overhead(const Lane& lane) const override {
    return std::string_view("{\"message_id\":\"").size() + 36 + middle_[lane.index].size() + 24 +
           std::string_view("\",\"payload\":{\"content_type\":\"text/plain\",\"content\":\"").size() + 3;
  }

  std::string check(std::size_t, const Lane& lane, std::string_view frame, std::string_view marker) override {
    auto j = json::parse_strict(frame);
    if (!j || !j->is_object()) return "not a JSON object";
    if (j->value("message_type", std::string()) != "DIRECT_MESSAGE") return "message_type is not DIRECT_MESSAGE";
    if (j->value("sender_id", std::string()) != ids_[lane.from]) return "sender_id is not the sender " + ids_[lane.from];
    if (j->value("receiver_id", std::string()) != ids_[lane.to]) return "receiver_id is not " + ids_[lane.to];
    if (str_at(*j, "/payload/content") != marker) return "payload.content was changed on the way";
    return "";
  }

 private:
  static std::string now() {
    char ts[24];
    write_utc_now(ts);
    return std::string(ts, 24);
  }

  std::vector<std::string> ids_, tokens_, middle_;
  std::string lobby_id_, version_;
  mutable std::mutex mutex_;
  std::vector<bool> synced_;
};

}  // namespace

Expected<std::unique_ptr<Profile>, std::string> make_alp_profile(ProfileSettings s) {
  return std::unique_ptr<Profile>(new AlpProfile(std::move(s)));
}

}  // namespace ac::load

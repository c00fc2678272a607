// A2ACP under load: requests brokered under a contract (a2acp-1.0.md §Handshake Protocol,
// §Message Routing). Per pair and stream, the source agent negotiates a collaboration with the
// broker (initiate_handshake, the target accepting the broker's accept_handshake), then sends
// requests carrying the contract_id; the target answers each with a response (the broker keeps
// a request pending until its response, and bounds what is pending). Tokens come from the auth
// service as for `run` (settings.api_key, api_key_member); the targets are agents of the broker's
// directory that serve the intent: settings.target_agents.dataset (the embedded lobby lists 64)
// and settings.open_intent (default "echo", an intent with open schemas), with
// settings.capabilities[intent] the capabilities a token needs for it.
#include <algorithm>
#include <atomic>
#include <deque>

#include "harness/json/strict_reader.hpp"
#include "harness/load/profiles/common.hpp"

namespace ac::load {
namespace {

using Clock = std::chrono::steady_clock;

class A2acpProfile final : public ProfileBase {
 public:
  explicit A2acpProfile(ProfileSettings s) : ProfileBase(std::move(s)) {
    contract_.resize(topology().lanes.size());
    retry_at_.assign(topology().lanes.size(), Clock::time_point::max());
    attempts_.assign(topology().lanes.size(), 0);
    pending_.resize(agents());
  }

  std::string agent_name(std::size_t agent) const override { return ids_.empty() ? default_id(agent) : ids_[agent]; }

  Expected<bool, std::string> prepare(net::Runtime& runtime) override {
    intent_ = target().setting("open_intent", "echo");
    broker_ = {{"agent_id", target().setting("broker_agent_id", "protocol-broker-agent")},
               {"domain", target().setting("broker_domain", "a_domain")},
               {"version", target().setting("broker_version", "1.0.0")}};
    version_ = target().setting("protocol_version", "1.0");
    const Json pool = target().settings.value("target_agents", Json::object()).value("dataset", Json::array());
    if (!pool.is_array() || pool.size() < senders()) {
      return unexpected("settings.target_agents.dataset lists " + std::to_string(pool.is_array() ? pool.size() : 0) +
                        " directory agents serving " + intent_ + "; --agents " + std::to_string(agents()) + " needs " +
                        std::to_string(senders()) + " receivers");
    }
    const Json domains = target().settings.value("pool_domains", Json::object());
    const std::string receiver_domain = domains.is_object() && domains.contains("dataset") && domains["dataset"].is_string()
                                            ? domains["dataset"].get<std::string>()
                                            : std::string("a_domain");
    Json caps = Json::array();
    if (auto c = target().settings.find("capabilities"); c != target().settings.end() && c->is_object() && c->contains(intent_)) {
      caps = (*c)[intent_];
    }
    for (std::size_t i = 0; i < agents(); ++i) {
      const bool source = is_sender(i);
      ids_.push_back(source ? default_id(i) : pool[i - senders()].get<std::string>());
      identity_.push_back({{"agent_id", ids_.back()},
                           {"domain", source ? target().setting("agent_domain", "a_domain") : receiver_domain},
                           {"version", target().setting("agent_version", "1.0.0")}});
    }
    const std::string broker_id = broker_["agent_id"].get<std::string>();
    for (std::size_t i = 0; i < agents(); ++i) {
      auto t = token(runtime, ids_[i], broker_id, is_sender(i) ? caps : Json::array());
      if (!t) return unexpected(t.error());
      broker_token_.push_back(*t);
    }
    // Tokens between the parties: a source's for its target (requests), a target's for its source (responses).
    peer_token_.resize(agents());
    for (std::size_t i = 0; i < senders(); ++i) {
      auto to = token(runtime, ids_[i], ids_[i + senders()], caps);
      if (!to) return unexpected(to.error());
      peer_token_[i] = *to;
      auto back = token(runtime, ids_[i + senders()], ids_[i], Json::array());
      if (!back) return unexpected(back.error());
      peer_token_[i + senders()] = *back;
    }
    for (std::size_t i = 0; i < agents(); ++i) {
      const std::size_t peer = is_sender(i) ? i + senders() : i - senders();
      // Everything of a message around its id, timestamp, contract, correlation id and marker.
      head_.push_back("{\"protocol_version\":" + json_string(version_) + ",\"message_id\":\"");
      middle_.push_back("\",\"source_agent\":" + identity_[i].dump() + ",\"target_agent\":" + identity_[peer].dump() +
                        ",\"message_type\":\"" + (is_sender(i) ? "request" : "response") + "\",\"intent\":" + json_string(intent_) +
                        ",\"security\":{\"auth_token\":" + json_string(peer_token_[i]) + ",\"encryption\":\"none\"}" +
                        ",\"payload\":{\"contract_id\":");
    }
    return true;
  }

  Endpoint endpoint(std::size_t agent) const override {
    std::string q = "agent_id=" + percent_encode(ids_[agent]);
    if (target().setting("attach", "token") == "token") q += "&token=" + percent_encode(broker_token_[agent]);
    return {ws_url("ws", q), {}};
  }

  void on_open(std::size_t agent, Sink& sink) override {
    if (!is_sender(agent)) return;
    for (const Lane* l : lanes_from(agent)) send_handshake(*l, sink);
  }

  Seen on_frame(std::size_t agent, std::string_view frame, Sink& sink) override {
    auto j = json::parse_strict(frame);
    if (!j || !j->is_object()) return {Seen::Kind::unexpected, "frame that is not a JSON object"};
    const std::string type = j->value("message_type", std::string()), intent = j->value("intent", std::string());
    if (type == "error") {
      const std::string code = str_at(*j, "/payload/error/code");
      if (is_sender(agent) && intent == "initiate_handshake") {
        std::lock_guard lock(mutex_);
        auto& q = pending_[agent];
        std::size_t lane = handshake_lane(*j);
        if (std::find(q.begin(), q.end(), lane) == q.end()) lane = q.empty() ? SIZE_MAX : q.front();
        if (lane != SIZE_MAX) {
          q.erase(std::find(q.begin(), q.end(), lane));
          // TIMEOUT: the target was not attached yet when the broker looked (it binds after
          // answering the upgrade): retry that handshake shortly.
          if (code == "TIMEOUT" && ++attempts_[lane] < 50) {
            retry_at_[lane] = Clock::now() + std::chrono::milliseconds(50);
            return {};
          }
          last_error_ = code + ": " + str_at(*j, "/payload/error/message");
        }
      }
      return {Seen::Kind::error, code.empty() ? std::string("error") : code};
    }
    if (type == "request" && intent == "accept_handshake") {
      // The target accepts every collaboration offered to it.
      const Json answer = envelope(agent, broker_, "response", "accept_handshake",
                                   {{"accepted", true}, {"collaboration_id", j->value("/payload/collaboration_id"_json_pointer, Json())}},
                                   broker_token_[agent]);
      sink.send(agent, answer.dump());
      return {};
    }
    if (type == "response" && intent == "initiate_handshake" && is_sender(agent)) {
      const std::string contract = str_at(*j, "/payload/contract/contract_id");
      std::lock_guard lock(mutex_);
      std::size_t lane = handshake_lane(*j);
      auto& q = pending_[agent];
      if (lane >= contract_.size() || std::find(q.begin(), q.end(), lane) == q.end()) {
        if (q.empty()) return {Seen::Kind::unexpected, "a handshake result nothing waited for"};
        lane = q.front();  // the broker echoed no correlation id: handshakes are answered in order
      }
      q.erase(std::find(q.begin(), q.end(), lane));
      if (contract.empty()) return {Seen::Kind::unexpected, "a handshake result without contract.contract_id"};
      contract_[lane] = contract;
      ++established_;
      return {};
    }
    if (type == "event") return {};  // contract_established, collaboration_terminated
    return {Seen::Kind::unexpected, "an unexpected " + type + " " + intent};
  }

  void tick(Sink& sink) override {
    std::vector<std::size_t> due;
    {
      std::lock_guard lock(mutex_);
      const auto now = Clock::now();
      for (std::size_t i = 0; i < retry_at_.size(); ++i) {
        if (retry_at_[i] <= now) {
          retry_at_[i] = Clock::time_point::max();
          due.push_back(i);
        }
      }
    }
    for (auto i : due) send_handshake(topology().lanes[i], sink);
  }

  std::optional<std::string> waiting() const override {
    std::lock_guard lock(mutex_);
    if (established_ == topology().lanes.size()) return std::nullopt;
    return std::to_string(topology().lanes.size() - established_) + " of " + std::to_string(topology().lanes.size()) +
           " collaborations not yet established (initiate_handshake answered with a contract)" +
           (last_error_.empty() ? std::string() : "; the broker answered " + last_error_);
  }

  void begin_traffic() override {
    std::lock_guard lock(mutex_);
    contract_text_.clear();
    for (const auto& c : contract_) contract_text_.push_back(json_string(c));
  }

  void encode(const Lane& lane, std::uint64_t seq, std::string_view marker, std::string& out) override {
    write_message(lane.from, lane, lane.index, seq, marker, out);
  }

  std::size_t overhead(const Lane& lane) const override {
    std::string probe;
    const_cast<A2acpProfile*>(this)->write_message(lane.from, lane, lane.index, 0, {}, probe);
    return probe.size();
  }

  void answer(std::size_t agent, const Lane& lane, std::uint64_t seq, std::string_view, Sink& sink) override {
    std::string out;
    char marker[kMarkerBytes];
    write_marker(marker, kReplyTag, run_id(), lane.index, seq, 0);
    write_message(agent, lane, lane.index, seq, std::string_view(marker, kMarkerBytes), out);
    sink.send(agent, std::move(out));
  }

  std::string check(std::size_t, const Lane& lane, std::string_view frame, std::string_view marker) override {
    auto j = json::parse_strict(frame);
    if (!j || !j->is_object()) return "not a JSON object";
    if (j->value("message_type", std::string()) != "request") return "message_type is not request";
    if (str_at(*j, "/source_agent/agent_id") != ids_[lane.from]) return "source_agent is not the sender";
    if (str_at(*j, "/target_agent/agent_id") != ids_[lane.to]) return "target_agent is not the receiver";
    std::string contract;
    {
      std::lock_guard lock(mutex_);
      contract = contract_[lane.index];
    }
    if (str_at(*j, "/payload/contract_id") != contract) return "payload.contract_id is not the lane's contract";
    if (str_at(*j, "/payload/m") != marker) return "payload.m was changed on the way";
    return "";
  }

 private:
  Expected<std::string, std::string> token(net::Runtime& runtime, const std::string& sub, const std::string& aud, const Json& caps) {
    Json body = {{"agent_id", sub}, {"target_agent_id", aud}, {"requested_capabilities", caps}};
    body[target().setting("api_key_member", "api_key")] = target().setting("api_key");
    auto r = post_json(runtime, "a token for " + sub + " (audience " + aud + ")", http_url("token"), body);
    if (!r) return unexpected(r.error());
    const std::string t = str_at(*r, "/token");
    if (t.empty()) return unexpected("the auth service's answer for " + sub + " has no token: " + r->dump().substr(0, 200));
    return t;
  }

  Json envelope(std::size_t agent, const Json& to, const std::string& type, const std::string& intent, Json payload,
                const std::string& token) const {
    char ts[24];
    write_utc_now(ts);
    return {{"protocol_version", version_},
            {"message_id", uuid_for(run_id(), 0xFFFFFF, counter_++)},
            {"timestamp", std::string(ts, 24)},
            {"source_agent", identity_[agent]},
            {"target_agent", to},
            {"message_type", type},
            {"intent", intent},
            {"payload", std::move(payload)},
            {"security", {{"auth_token", token}, {"encryption", "none"}}}};
  }

  // The lane a handshake answer names in its correlation id ("acload-hs-<lane>"), or SIZE_MAX.
  std::size_t handshake_lane(const Json& j) const {
    std::string corr = str_at(j, "/payload/correlation_id");
    if (corr.empty()) corr = str_at(j, "/payload/error/correlation_id");
    if (!corr.starts_with("acload-hs-")) return SIZE_MAX;
    const std::size_t lane = std::strtoul(corr.c_str() + 10, nullptr, 10);
    return lane < contract_.size() ? lane : SIZE_MAX;
  }

  void send_handshake(const Lane& l, Sink& sink) {
    {
      std::lock_guard lock(mutex_);
      pending_[l.from].push_back(l.index);
    }
    const Json m = envelope(l.from, broker_, "request", "initiate_handshake",
                            {{"target_agent_id", ids_[l.to]}, {"requested_intent", intent_},
                             {"correlation_id", "acload-hs-" + std::to_string(l.index)}},
                            broker_token_[l.from]);
    sink.send(l.from, m.dump());
  }

  // A request (from the source) or its response (from the target) of `lane`.
  void write_message(std::size_t agent, const Lane& lane, std::uint32_t id_lane, std::uint64_t seq, std::string_view marker,
                     std::string& out) {
    char id[36], corr[36], ts[24];
    const bool request = is_sender(agent);
    write_uuid(id, run_id(), request ? id_lane : (id_lane | 0x800000u), seq);
    write_uuid(corr, run_id(), id_lane, seq);
    write_utc_now(ts);
    out += head_[agent];
    out.append(id, 36);
    out += "\",\"timestamp\":\"";
    out.append(ts, 24);
    out += middle_[agent];
    out += contract_json(lane.index);
    out += ",\"correlation_id\":\"";
    out.append(corr, 36);
    out += "\",\"m\":\"";
    out += marker;
    out += "\"}}";
  }

  // Contracts are set during the handshake and never change afterwards: begin_traffic() encodes
  // them once, before the first message (before it, the probe of overhead() sees "").
  std::string_view contract_json(std::size_t lane) const {
    return lane < contract_text_.size() ? std::string_view(contract_text_[lane]) : std::string_view("\"\"");
  }

  std::string intent_, version_;
  Json broker_;
  std::vector<std::string> ids_, broker_token_, peer_token_, head_, middle_;
  std::vector<Json> identity_;
  mutable std::mutex mutex_;
  mutable std::atomic<std::uint64_t> counter_{0};
  std::vector<std::string> contract_, contract_text_;
  std::vector<Clock::time_point> retry_at_;
  std::vector<int> attempts_;
  std::vector<std::deque<std::size_t>> pending_;  // per source: lanes whose handshake awaits its result
  std::size_t established_ = 0;
  std::string last_error_;
};

}  // namespace

Expected<std::unique_ptr<Profile>, std::string> make_a2acp_profile(ProfileSettings s) {
  return std::unique_ptr<Profile>(new A2acpProfile(std::move(s)));
}

}  // namespace ac::load

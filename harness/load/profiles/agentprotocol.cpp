// AgentProtocol under load: signed `request` messages relayed by the target between agents
// connected at its WebSocket (reference README "Bindings and relay"). Every agent has its own
// Ed25519 key; it binds its id to its connection with a signed hello to the target
// (settings.peer_agent_id, the target's own agentId; the embedded lobby's is filled in) and is
// ready once the target answered it. Each message is signed (agentprotocol-0.1.md §Signature
// Verification): an Ed25519 signature per message, as a real agent pays it.
//
// The hot path writes the message directly in its RFC 8785 canonical form (members in sorted
// order, no whitespace, strings that need no escaping), signs those bytes, and inserts the
// signature member in its sorted place: the same bytes signature.hpp's sign() produces, without
// building a JSON tree per message (tests/load/load_units_test.cpp checks they agree).
#include "harness/crypto/base64.hpp"
#include "harness/crypto/ed25519.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/load/profiles/common.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"

namespace ac::load {
namespace {

namespace ap = proto::agentprotocol;

class AgentProtocolProfile final : public ProfileBase {
 public:
  explicit AgentProtocolProfile(ProfileSettings s) : ProfileBase(std::move(s)) { answered_.assign(agents(), false); }

  std::string agent_name(std::size_t agent) const override { return ids_.empty() ? default_id(agent) : ids_[agent]; }

  Expected<bool, std::string> prepare(net::Runtime&) override {
    peer_ = target().setting("peer_agent_id");
    if (peer_.empty()) {
      return unexpected(std::string("settings.peer_agent_id: the target's agentId is needed (the load agents bind to their "
                                    "connections with a signed hello to it)"));
    }
    for (std::size_t i = 0; i < agents(); ++i) {
      auto key = crypto::Ed25519PrivateKey::generate();
      if (!key) return unexpected(std::string("cannot generate an Ed25519 key"));
      ids_.push_back(ap::agent_id(key->public_key()));
      keys_.push_back(std::move(*key));
    }
    for (const auto& l : topology().lanes) {
      // Everything before the message id, and from the payload's marker to the end of
      // "protocol" (canonical member order: from, id, payload, protocol, signature, timestamp, to, type).
      head_.push_back("{\"from\":{\"agentId\":" + json_string(ids_[l.from]) + ",\"capabilities\":[\"agentprotocol:core\"]," +
                      "\"name\":\"agentconform load " + std::to_string(l.from) + "\"},\"id\":\"");
      tail_.push_back(",\"timestamp\":\"");
      to_.push_back("\",\"to\":{\"agentId\":" + json_string(ids_[l.to]) + ",\"broadcast\":false},\"type\":\"request\"}");
    }
    return true;
  }

  Endpoint endpoint(std::size_t) const override { return {ws_url("ws", ""), {}}; }

  void on_open(std::size_t agent, Sink& sink) override {
    char ts[24];
    write_utc_now(ts);
    const Json hello = {{"protocol", "agentprotocol/0.1"},
                        {"id", uuid_for(run_id(), 0xFFFFFF, agent)},
                        {"timestamp", std::string(ts, 24)},
                        {"from", {{"agentId", ids_[agent]}, {"name", "agentconform load " + std::to_string(agent)},
                                  {"capabilities", Json::array({"agentprotocol:core"})}}},
                        {"to", {{"agentId", peer_}, {"broadcast", false}}},
                        {"type", "hello"},
                        {"payload", {{"version", "0.1"}}}};
    auto signed_hello = ap::sign(hello, keys_[agent]);
    if (!signed_hello) return;  // waiting() then reports the agent as not answered
    sink.send(agent, signed_hello->dump());
  }

  Seen on_frame(std::size_t agent, std::string_view frame, Sink&) override {
    auto j = json::parse_strict(frame);
    if (!j || !j->is_object()) return {Seen::Kind::unexpected, "frame that is not a JSON object"};
    const std::string type = j->value("type", std::string());
    if (type == "error") {
      const std::string code = str_at(*j, "/payload/code");
      return {Seen::Kind::error, code.empty() ? std::string("error") : code};
    }
    if (type == "hello" && str_at(*j, "/from/agentId") == peer_) {
      std::lock_guard lock(mutex_);
      answered_[agent] = true;
      return {};
    }
    return {Seen::Kind::unexpected, "an unexpected '" + type + "' message"};
  }

  std::optional<std::string> waiting() const override {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (bool a : answered_) n += a ? 0 : 1;
    if (n == 0) return std::nullopt;
    return std::to_string(n) + " agents without the target's answer to their hello (the binding of their connection)";
  }

  void encode(const Lane& lane, std::uint64_t seq, std::string_view marker, std::string& out) override {
    char id[36], ts[24];
    write_uuid(id, run_id(), lane.index, seq);
    write_utc_now(ts);
    std::string& base = scratch();
    base.clear();
    base += head_[lane.index];
    base.append(id, 36);
    base += "\",\"payload\":{\"action\":\"acload\",\"correlationId\":\"";
    base.append(id, 36);
    base += "\",\"params\":{\"m\":\"";
    base += marker;
    base += "\"}},\"protocol\":\"agentprotocol/0.1\"";
    const std::size_t cut = base.size();
    base += tail_[lane.index];
    base.append(ts, 24);
    base += to_[lane.index];
    auto sig = keys_[lane.from].sign(base);
    out.append(base, 0, cut);
    out += ",\"signature\":\"";
    out += sig ? crypto::base64_encode(*sig) : std::string(88, 'A');  // a failed signature shows as the relay's error
    out += '"';
    out.append(base, cut, std::string::npos);
  }

  std::size_t overhead(const Lane& lane) const override {
    return head_[lane.index].size() + 36 + std::string_view("\",\"payload\":{\"action\":\"acload\",\"correlationId\":\"").size() +
           36 + std::string_view("\",\"params\":{\"m\":\"").size() + std::string_view("\"}},\"protocol\":\"agentprotocol/0.1\"").size() +
           std::string_view(",\"signature\":\"").size() + 88 + 1 + tail_[lane.index].size() + 24 + to_[lane.index].size();
  }

  std::string check(std::size_t, const Lane& lane, std::string_view frame, std::string_view marker) override {
    auto v = ap::verify_text(frame);
    if (!v) return "the relayed message does not verify: " + v.error().describe();
    auto j = json::parse_strict(frame);
    if (!j) return "not JSON";
    if (j->value("type", std::string()) != "request") return "type is not request";
    if (str_at(*j, "/from/agentId") != ids_[lane.from]) return "from.agentId is not the sender's";
    if (str_at(*j, "/to/agentId") != ids_[lane.to]) return "to.agentId is not the receiver's";
    if (str_at(*j, "/payload/params/m") != marker) return "payload.params.m was changed on the way";
    return "";
  }

 private:
  static std::string& scratch() {
    thread_local std::string s;
    return s;
  }

  std::string peer_;
  std::vector<std::string> ids_;
  std::vector<crypto::Ed25519PrivateKey> keys_;
  std::vector<std::string> head_, tail_, to_;
  mutable std::mutex mutex_;
  std::vector<bool> answered_;
};

}  // namespace

Expected<std::unique_ptr<Profile>, std::string> make_agentprotocol_profile(ProfileSettings s) {
  return std::unique_ptr<Profile>(new AgentProtocolProfile(std::move(s)));
}

}  // namespace ac::load

// Agora under load: each lane is a stream. The sender opens it with `send` (stream: true) once
// both ends are registered, streams `send_chunk` frames whose chunk text is the marker, and ends
// it with `send_end`; the relay forwards them as message / message_chunk / message_end with
// `from` = the sender. Registration as target.json says (settings.binding "query", the default,
// or "first-frame" with register_frame / register_ack), like the conformance driver.
#include <atomic>
#include <map>

#include "harness/json/strict_reader.hpp"
#include "harness/load/profiles/common.hpp"
#include "harness/protocols/agora/codec.hpp"

namespace ac::load {
namespace {

namespace pa = proto::agora;

class AgoraProfile final : public ProfileBase {
 public:
  explicit AgoraProfile(ProfileSettings s) : ProfileBase(std::move(s)) {
    first_frame_ = target().setting("binding", "query") == "first-frame";
    registered_.assign(agents(), false);
    started_at_receiver_.assign(topology().lanes.size(), false);
    start_sent_.assign(topology().lanes.size(), false);
    for (const auto& l : topology().lanes) {
      prefix_.push_back("{\"type\":\"send_chunk\",\"to\":" + json_string(agent_name(l.to)) + ",\"stream_id\":" +
                        json_string(stream_id(l)) + ",\"chunk\":\"");
    }
  }

  std::string agent_name(std::size_t agent) const override { return default_id(agent); }
  static std::string stream_id(const Lane& l) { return "acload-s" + std::to_string(l.stream); }

  Expected<bool, std::string> prepare(net::Runtime&) override {
    if (target().path("ws").empty()) return unexpected(std::string("settings: no path for the Agora endpoint \"ws\""));
    return true;
  }

  Endpoint endpoint(std::size_t agent) const override {
    if (first_frame_) return {ws_url("ws", ""), {}};
    return {ws_url("ws", percent_encode(target().setting("query_parameter", "agent_id")) + "=" + percent_encode(agent_name(agent))), {}};
  }

  void on_open(std::size_t agent, Sink& sink) override {
    if (first_frame_) {
      Json frame = target().settings.value("register_frame", Json{{"type", "register"}, {"agent_id", "${id}"}});
      substitute(frame, agent_name(agent));
      sink.send(agent, frame.dump());
      return;
    }
    mark_registered(agent, sink);
  }

  Seen on_frame(std::size_t agent, std::string_view frame, Sink& sink) override {
    auto j = json::parse_strict(frame);
    if (!j || !j->is_object()) return {Seen::Kind::unexpected, "frame that is not a JSON object"};
    const std::string type = j->value("type", std::string());
    if (type == "error") return {Seen::Kind::error, j->value("code", std::string("(no code)"))};
    if (first_frame_ && !registered(agent) && matches_ack(*j)) {
      mark_registered(agent, sink);
      return {};
    }
    if (type == "message" && j->value("stream", false)) {
      // A stream start: which lane (sender, stream) it opens at this receiver.
      const std::string from = j->value("from", std::string()), sid = j->value("stream_id", std::string());
      for (const Lane* l : lanes_to(agent)) {
        if (agent_name(l->from) == from && stream_id(*l) == sid) {
          std::lock_guard lock(mutex_);
          if (!started_at_receiver_[l->index]) {
            started_at_receiver_[l->index] = true;
            ++started_;
          }
          return {};
        }
      }
      return {Seen::Kind::unexpected, "a stream start for no lane of this agent"};
    }
    if (type == "message_end" || type == "registered") return {};
    return {Seen::Kind::unexpected, "an unexpected '" + type + "' frame"};
  }

  std::optional<std::string> waiting() const override {
    std::lock_guard lock(mutex_);
    if (started_ == topology().lanes.size()) return std::nullopt;
    return std::to_string(topology().lanes.size() - started_) + " of " + std::to_string(topology().lanes.size()) +
           " stream starts not yet delivered (send with stream: true)";
  }

  void encode(const Lane& lane, std::uint64_t, std::string_view marker, std::string& out) override {
    out += prefix_[lane.index];
    out += marker;
    out += "\"}";
  }
  std::size_t overhead(const Lane& lane) const override { return prefix_[lane.index].size() + 2; }

  std::string check(std::size_t, const Lane& lane, std::string_view frame, std::string_view marker) override {
    auto m = pa::decode(frame);
    if (!m) return "not an Agora frame: " + m.error().describe();
    const auto* c = m->get<pa::ForwardChunk>();
    if (c == nullptr) return "a '" + std::string(pa::type_name(m->type())) + "' frame where message_chunk was due";
    if (c->from != agent_name(lane.from)) return "from is \"" + c->from + "\", not the sender \"" + agent_name(lane.from) + "\"";
    if (c->stream_id != stream_id(lane)) return "stream_id is \"" + c->stream_id + "\", not \"" + stream_id(lane) + "\"";
    if (c->chunk != marker) return "the chunk text was changed on the way";
    return "";
  }

  void on_finish(std::size_t agent, Sink& sink) override {
    for (const Lane* l : lanes_from(agent)) {
      sink.send(agent, Json{{"type", "send_end"}, {"to", agent_name(l->to)}, {"stream_id", stream_id(*l)}}.dump());
    }
  }

 private:
  static void substitute(Json& j, const std::string& id) {
    if (j.is_string() && j.get<std::string>() == "${id}") j = id;
    if (j.is_object() || j.is_array()) {
      for (auto& v : j) substitute(v, id);
    }
  }

  bool matches_ack(const Json& frame) const {
    const Json ack = target().settings.value("register_ack", Json{{"type", "registered"}});
    if (!ack.is_object()) return false;
    for (const auto& [k, v] : ack.items()) {
      if (!frame.contains(k) || frame[k] != v) return false;
    }
    return true;
  }

  bool registered(std::size_t agent) const {
    std::lock_guard lock(mutex_);
    return registered_[agent];
  }

  // Once both ends of a lane are registered, its sender opens the stream.
  void mark_registered(std::size_t agent, Sink& sink) {
    std::vector<std::pair<std::size_t, std::string>> starts;
    {
      std::lock_guard lock(mutex_);
      registered_[agent] = true;
      for (const auto& l : topology().lanes) {
        if (start_sent_[l.index] || !registered_[l.from] || !registered_[l.to]) continue;
        start_sent_[l.index] = true;
        starts.emplace_back(l.from, Json{{"type", "send"},
                                         {"to", agent_name(l.to)},
                                         {"stream_id", stream_id(l)},
                                         {"stream", true},
                                         {"payload", {{"action", "agentconform-load"}, {"run", run_id()}}}}
                                        .dump());
      }
    }
    for (auto& [from, text] : starts) sink.send(from, std::move(text));
  }

  bool first_frame_ = false;
  std::vector<std::string> prefix_;  // per lane: the frame up to the chunk text
  mutable std::mutex mutex_;
  std::vector<bool> registered_, started_at_receiver_, start_sent_;
  std::size_t started_ = 0;
};

}  // namespace

Expected<std::unique_ptr<Profile>, std::string> make_agora_profile(ProfileSettings s) {
  return std::unique_ptr<Profile>(new AgoraProfile(std::move(s)));
}

}  // namespace ac::load

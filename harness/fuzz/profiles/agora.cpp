// Agora relay with streaming (agora-relay-streaming.md): agents bound by the ?agent_id= query
// (the binding the spec leaves open; target settings `query_parameter`, path `ws`).
//   seed       a, b and a bystander c; a streams to b (two interleaved streams), b replies
//   structure  unknown recipients and stream ids, chunks after the end, a stream id reused
//   auth       a connection binding the id of a live agent (hijack)
//   protocol   every frame that cannot be forwarded draws an error frame: broken frames, an
//              unknown recipient, a chunk of a stream never started or already ended; a hijack
//              is refused
//   isolation  a forwarded frame reaches only an agent that some other connection addressed,
//              with `from` = an agent that did; the chunks of a stream arrive complete and in order
//   probe      a one-shot send between two fresh agents is delivered
#include <set>

#include "harness/fuzz/profiles/profiles.hpp"

namespace ac::fuzz {
namespace {

const std::set<std::string> kSenderTypes = {"send", "send_chunk", "send_end", "reply", "reply_chunk", "reply_end"};
const std::set<std::string> kDeliveredTypes = {"message", "message_chunk", "message_end", "reply", "reply_chunk", "reply_end"};

std::string family_of(const std::string& type) { return type.starts_with("reply") ? "reply" : "send"; }

class Agora final : public Profile {
 public:
  Protocol protocol() const override { return Protocol::agora; }

  std::vector<Step> seed_flow(Rng& rng, const Scope& /*scope: one role, one transport*/) const override {
    std::vector<Step> s{connect_step("a", "${path.ws}?${query}=${a}"), connect_step("b", "${path.ws}?${query}=${b}"),
                        connect_step("c", "${path.ws}?${query}=${c}")};  // c: a bystander nobody addresses
    s.push_back(text_step("a", Json{{"type", "send"}, {"to", "${b}"}, {"stream", true}, {"stream_id", "${id:s1}"},
                                    {"payload", {{"action", "query"}, {"body", {{"question", "hello?"}}}}}}));
    const bool two = chance(rng, 0.5);
    if (two) s.push_back(text_step("a", Json{{"type", "send"}, {"to", "${b}"}, {"stream", true}, {"stream_id", "${id:s2}"}}));
    const std::size_t chunks = 2 + pick(rng, 3);
    for (std::size_t i = 0; i < chunks; ++i) {
      const std::string sid = two && i % 2 ? "${id:s2}" : "${id:s1}";
      s.push_back(text_step("a", Json{{"type", "send_chunk"}, {"to", "${b}"}, {"stream_id", sid}, {"chunk", "part " + std::to_string(i)}}));
    }
    s.push_back(text_step("a", Json{{"type", "send_end"}, {"to", "${b}"}, {"stream_id", "${id:s1}"}}));
    if (two) s.push_back(text_step("a", Json{{"type", "send_end"}, {"to", "${b}"}, {"stream_id", "${id:s2}"}}));
    if (chance(rng, 0.5)) {
      s.push_back(text_step("b", Json{{"type", "reply"}, {"to", "${a}"}, {"payload", {{"text", "thanks"}}}}));
    } else {
      s.push_back(text_step("b", Json{{"type", "reply"}, {"to", "${a}"}, {"stream", true}, {"stream_id", "${id:r1}"}}));
      s.push_back(text_step("b", Json{{"type", "reply_chunk"}, {"to", "${a}"}, {"stream_id", "${id:r1}"}, {"chunk", "an answer"}}));
      s.push_back(text_step("b", Json{{"type", "reply_end"}, {"to", "${a}"}, {"stream_id", "${id:r1}"}}));
    }
    return s;
  }

  std::string structure(Rng& rng, std::vector<Step>& s) const override {
    auto streamed = text_steps_with(s, "\"stream_id\"");
    auto addressed = text_steps_with(s, "\"to\"");
    if (addressed.empty()) return {};
    switch (pick(rng, 5)) {
      case 4: {
        // Identifier collision: c streams with the stream_id a's stream uses, at the same time,
        // to a (a relay that keys streams by id alone sends a's chunks to a) or to b.
        auto starts = text_steps_with(s, "\"stream\":true");
        auto chunks = text_steps_with(s, "\"send_chunk\"");
        auto ends = text_steps_with(s, "\"send_end\"");
        if (starts.empty() || chunks.empty() || ends.empty()) return {};
        auto start = strict_object(s[starts[0]].data);
        if (!start || s[starts[0]].conn != "a") return {};
        const std::string sid = member_string(*start, "stream_id");
        const std::string to = chance(rng, 0.5) ? "${a}" : "${b}";
        // Inserted back to front, so the earlier positions stay right.
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(ends.back() + 1),
                 text_step("c", Json{{"type", "send_end"}, {"to", to}, {"stream_id", sid}}));
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(chunks[0] + 1),
                 text_step("c", Json{{"type", "send_chunk"}, {"to", to}, {"stream_id", sid}, {"chunk", "from c"}}));
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(starts[0] + 1),
                 text_step("c", Json{{"type", "send"}, {"to", to}, {"stream", true}, {"stream_id", sid}, {"payload", {{"action", "clash"}}}}));
        return "structure: c opens a stream with the stream_id of a's open stream, to " + std::string(to == "${a}" ? "a" : "b");
      }
      case 0: {
        const std::size_t i = addressed[pick(rng, addressed.size())];
        set_member(s[i], "to", "nobody-" + std::to_string(pick(rng, 1000)));
        return "structure: unknown recipient in step " + std::to_string(i);
      }
      case 1: {
        if (streamed.empty()) return {};
        const std::size_t i = streamed[pick(rng, streamed.size())];
        set_member(s[i], "stream_id", "unknown-" + std::to_string(pick(rng, 1000)));
        return "structure: unknown stream_id in step " + std::to_string(i);
      }
      case 2: {
        // A chunk (or a second end) after the end of a stream.
        auto ends = text_steps_with(s, "_end\"");
        if (ends.empty()) return {};
        const std::size_t i = ends[pick(rng, ends.size())];
        Step extra = s[i];
        if (chance(rng, 0.5)) {
          auto j = strict_object(extra.data);
          if (!j) return {};
          (*j)["type"] = member_string(*j, "type") == "reply_end" ? "reply_chunk" : "send_chunk";
          (*j)["chunk"] = "late";
          extra.data = j->dump();
        }
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(i + 1 + pick(rng, s.size() - i)), std::move(extra));
        return "structure: stream frame after its end (step " + std::to_string(i) + ")";
      }
      default: {
        // A stream start reusing the id of an open stream.
        auto starts = text_steps_with(s, "\"stream\":true");
        if (starts.empty()) return {};
        const std::size_t i = starts[pick(rng, starts.size())];
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(i + 1), s[i]);
        return "structure: stream start repeated with an open stream's id (step " + std::to_string(i) + ")";
      }
    }
  }

  std::string auth(Rng& rng, std::vector<Step>& s) const override {
    // A connection binding a live agent's id; then it tries to send and to receive.
    const std::string victim = chance(rng, 0.5) ? "a" : "b";
    const std::size_t at = std::min(s.size(), 3 + pick(rng, s.size()));
    s.insert(s.begin() + static_cast<std::ptrdiff_t>(at),
             {connect_step("h", "${path.ws}?${query}=${" + victim + "}"),
              text_step("h", Json{{"type", "send"}, {"to", "${c}"}, {"payload", {{"text", "as " + victim}}}})});
    return "auth: connection h binds the id of live agent " + victim + " (hijack)";
  }

  void begin(Exec& exec, const TargetView& target) const override {
    for (const char* label : {"a", "b", "c"}) exec.vars[label] = exec.prefix + label;
    exec.vars["path.ws"] = target.config.path("ws");
    exec.vars["query"] = target.config.setting("query_parameter", "agent_id");
    // Oracles that rest on a reading apply only to a relay that claims it (agora.error-frames:
    // error frames for refused frames, and a second binding of a live id refused, AG-1/AG-6).
    exec.state["error_frames"] = target.config.claims("agora.error-frames");
  }

  void connected(Exec& exec, ConnRecord& c, const Step& step) const override {
    // The id this connection binds: the agent placeholder at the end of the query.
    const auto open = step.data.rfind("${");
    const auto close = step.data.find('}', open == std::string::npos ? 0 : open);
    if (open == std::string::npos || close == std::string::npos) return;
    c.id = exec.id_of(step.data.substr(open + 2, close - open - 2));
    if (c.id.empty() || !c.ws) return;
    // A live connection (clean, accepted, not closed by the session) already holds the id.
    for (const auto& other : exec.conns) {
      if (&other != &c && other.id == c.id && other.ws && !other.sent_close && !other.closed) c.expect["hijack_of"] = other.label;
    }
    if (!c.expect.contains("hijack_of")) exec.state["live"][c.id] = c.label;
  }

  void sent(Exec& exec, ConnRecord& c, const std::string& payload) const override {
    if (c.expect.contains("hijack_of")) return;  // judged as a hijack
    Json& obligations = c.expect["errors"];
    if (!obligations.is_array()) obligations = Json::array();
    // The spec defines no error frame: one is owed only by a relay that claims agentconform's
    // (feature agora.error-frames, reading AG-6). Without it a refused frame must only not be
    // delivered, which the isolation oracle checks.
    const bool error_frames = exec.state.value("error_frames", false);
    auto owe = [&](const std::string& why) {
      if (error_frames) obligations.push_back(why + ": " + shorten(payload));
    };
    Json& streams = c.expect["streams"];
    if (!streams.is_object()) streams = Json::object();
    auto unjudged = [&](const std::string& key) {  // what becomes of this stream is no longer known
      streams[key] = "uncertain";
      if (c.expect.contains("chunks")) c.expect["chunks"].erase(key);
    };
    auto object = plain_object(payload);
    if (!object) {
      // Not JSON (a byte-order mark included): refused or ignored, it is neither lost nor a
      // violation; if a lenient relay reads it anyway, its stream is no longer judged.
      if (const std::string sid = lenient_member(payload, "stream_id"); !sid.empty()) {
        unjudged(family_of(lenient_member(payload, "type")) + "/" + sid);
      }
      return;
    }
    auto decoded = profile_of(Protocol::agora).check(std::move(*object));
    if (!decoded) {
      owe("broken frame");
      // A relay "forwards as-is" (AG-2): one that does not read a frame as strictly as we do may
      // forward it, so what its stream delivers is no longer judged.
      if (const std::string sid = lenient_member(payload, "stream_id"); !sid.empty()) {
        unjudged(family_of(lenient_member(payload, "type")) + "/" + sid);
      }
      return;
    }
    const Json& j = decoded->value;
    const std::string type = member_string(j, "type");
    if (!kSenderTypes.count(type)) return;
    const std::string to = member_string(j, "to");
    // A recipient of this session that is connected now is registered by the time the relay
    // handles this frame; one that connects later may or may not be (the relay handles
    // different connections concurrently): no expectation either way. Anyone else is unknown.
    bool session_agent = false;
    for (const char* label : {"a", "b", "c"}) session_agent = session_agent || to == exec.id_of(label);
    // The connection `to` is bound to now (a clean, live one), if any: streams stay with the
    // connection they started with, even when the agent reconnects (reading of the reference,
    // reference/agora/README.md "Streams").
    std::optional<std::size_t> live;
    for (std::size_t k = 0; k < exec.conns.size(); ++k) {
      const auto& o = exec.conns[k];
      if (o.id == to && o.ws && !o.sent_close && !o.closed && o.clean && !o.expect.contains("hijack_of")) live = k;
    }
    // Streams of this connection: family/stream_id -> open | uncertain | ended.
    const std::string sid = member_string(j, "stream_id");
    const std::string key = family_of(type) + "/" + sid;
    const bool start = type == "send" || type == "reply";
    const std::string state = streams.value(key, "");
    // The end of an open stream that names another recipient (or no agent at all): a relay that
    // keys streams by sender and id may end the stream before it finds the recipient unknown or
    // wrong (the fixed Node relay of tests/peers/fuzz does), or may refuse the frame and keep it
    // open. Either is a reading of the spec, so that stream's chunks are no longer judged (a false
    // "chunks lost" once a campaign reached such a session, 2026-11-26).
    const bool ends_open_stream_elsewhere =
        !start && type.ends_with("_end") && state == "open" && string_at(c.expect, {"stream_to", key.c_str()}) != to;
    if (!session_agent) {
      owe("unknown recipient");
      if (ends_open_stream_elsewhere) unjudged(key);
      return;
    }
    if (start) {
      if (at_path(j, {"stream"}) != true) return;  // one-shot
      if (state == "open") {
        owe("stream id in use");
        if (!error_frames) unjudged(key);  // the relay may take it as a new stream
        return;
      }
      if (state == "uncertain") return;
      streams[key] = live ? "open" : "uncertain";
      c.expect["stream_to"][key] = to;
      if (live) {
        c.expect["stream_conn"][key] = *live;
        c.expect["chunks"][key] = Json::array();
      }
      return;
    }
    if (state.empty() || state == "ended") {
      owe(state.empty() ? "unknown stream" : "frame after the stream's end");
      // A relay that keeps no stream state forwards it, before the stream's start as after its
      // end: the stream's chunks are no longer judged (the chunk a stateless relay forwarded
      // ahead of its start was once reported as "stream chunks lost or reordered").
      if (!error_frames) unjudged(key);
      return;
    }
    if (string_at(c.expect, {"stream_to", key.c_str()}) != to) {
      if (state == "open") owe("stream frame to another recipient");
      if (!error_frames || ends_open_stream_elsewhere) unjudged(key);
      return;
    }
    if (type.ends_with("_end")) {
      streams[key] = "ended";
    } else if (state == "open" && live && c.expect["stream_conn"].value(key, std::size_t{0}) == *live) {
      c.expect["chunks"][key].push_back(j.value("chunk", Json()));
    } else if (state == "open") {
      unjudged(key);  // the recipient left: what it got is no longer judged
    }
  }

  // The first owed frame no error frame answers: an error naming a stream_id answers the owed
  // frame of that stream, the others answer the remaining owed frames in order. (So the finding
  // names the frame it is about, not one an error did answer.)
  static std::string unanswered(const ConnRecord& c, const Json& owed) {
    std::vector<bool> answered(owed.size(), false);
    std::vector<std::string> anonymous;
    std::size_t unnamed = 0;
    for (const auto& e : c.events) {
      auto j = event_object(e);
      if (!j || member_string(*j, "type") != "error") continue;
      const std::string sid = member_string(*j, "stream_id");
      bool matched = false;
      for (std::size_t i = 0; i < owed.size() && !matched && !sid.empty(); ++i) {
        if (!answered[i] && owed[i].get<std::string>().find("\"stream_id\":\"" + sid + "\"") != std::string::npos) answered[i] = matched = true;
      }
      if (!matched) ++unnamed;
    }
    for (std::size_t i = 0; i < owed.size(); ++i) {
      if (answered[i]) continue;
      if (unnamed > 0) {
        --unnamed;
        continue;
      }
      return owed[i].get<std::string>();
    }
    return owed.empty() ? std::string() : owed.back().get<std::string>();
  }

  static int error_frames(const ConnRecord& c) {
    int n = 0;
    for (const auto& e : c.events) {
      if (auto j = event_object(e); j && member_string(*j, "type") == "error") ++n;
    }
    return n;
  }

  bool satisfied(const Exec& exec) const override {
    for (const auto& c : exec.conns) {
      if (!c.clean || c.closed) continue;
      const Json& o = c.expect.value("errors", Json::array());
      if (error_frames(c) < static_cast<int>(o.size())) return false;
    }
    // Every tracked chunk has reached its recipient (a pong can overtake frames a server has
    // queued, so the barrier alone does not prove that nothing more is coming).
    for (const auto& c : exec.conns) {
      for (const auto& s : tracked_streams(exec, c)) {
        if (s.got.size() < s.sent.size()) return false;
      }
    }
    return true;
  }

  static bool judged_receiver(const ConnRecord& c) { return c.clean && !c.closed && !c.sent_close && !c.id.empty(); }

  // The chunks a clean sender sent on streams it had open to the receiving connection number
  // `receiver`: stream key -> chunks.
  static Json tracked_to(const ConnRecord& o, std::size_t receiver) {
    Json out = Json::object();
    if (!o.clean || o.id.empty() || !o.expect.contains("chunks")) return out;
    for (const auto& [key, chunks] : o.expect["chunks"].items()) {
      if (o.expect["stream_conn"].value(key, std::size_t{0}) == receiver && !chunks.empty()) out[key] = chunks;
    }
    return out;
  }

  // What a connection received on streams: "family/stream_id@from" -> chunks in order.
  static std::map<std::string, Json> chunks_received(const ConnRecord& c) {
    std::map<std::string, Json> received;
    for (const auto& e : c.events) {
      auto j = event_object(e);
      if (!j) continue;
      const std::string type = member_string(*j, "type");
      if (type != "message_chunk" && type != "reply_chunk") continue;
      auto& list = received[std::string(type == "message_chunk" ? "send" : "reply") + "/" + member_string(*j, "stream_id") + "@" +
                            member_string(*j, "from")];
      if (list.is_null()) list = Json::array();
      list.push_back(j->value("chunk", Json()));
    }
    return received;
  }

  // A stream a clean sender had open to a clean receiver that stayed: the chunks sent on it and
  // the chunks the receiver got, in order (both oracles compare the two).
  struct TrackedStream {
    std::string key;
    const ConnRecord* sender;
    Json sent, got;
  };
  static std::vector<TrackedStream> tracked_streams(const Exec& exec, const ConnRecord& receiver) {
    std::vector<TrackedStream> out;
    if (!judged_receiver(receiver)) return out;
    const auto received = chunks_received(receiver);
    for (const auto& o : exec.conns) {
      const Json tracked = tracked_to(o, static_cast<std::size_t>(&receiver - exec.conns.data()));  // (items() needs it alive)
      for (const auto& [key, chunks] : tracked.items()) {
        auto it = received.find(key + "@" + o.id);
        out.push_back({key, &o, chunks, it == received.end() ? Json::array() : it->second});
      }
    }
    return out;
  }

  std::optional<Trip> judge(const Exec& exec) const override {
    const bool claims_errors = exec.state.value("error_frames", false);
    for (const auto& c : exec.conns) {
      if (c.expect.contains("hijack_of")) {
        if (!claims_errors) continue;  // rebinding to the newest connection is another reading
        const ConnRecord* owner = exec.conn(c.expect["hijack_of"].get<std::string>());
        const bool owner_live = owner != nullptr && owner->open();
        if (owner_live && !c.closed) {
          return Trip{"protocol", "a second connection bound the id of a live agent",
                      "connection " + c.label + " took the id of connection " + owner->label};
        }
        continue;
      }
      if (!c.clean) continue;
      const Json o = c.expect.value("errors", Json::array());
      const int errors = error_frames(c);
      if (errors < static_cast<int>(o.size())) {
        std::string got;
        for (const auto& e : c.events) got += "\n  received " + shorten(e.data, 160) + (e.kind == ws::Event::Kind::close ? " (close " + std::to_string(e.close_code) + ")" : "");
        std::string owed_list;
        for (const auto& x : o) owed_list += "\n  owed: " + x.get<std::string>();
        return Trip{"protocol", "a frame the relay cannot forward drew no error frame",
                    "the frame: " + unanswered(c, o) + "\n" + std::to_string(o.size()) + " such frame(s), " + std::to_string(errors) +
                        " error frame(s) on connection " + c.label + owed_list + got};
      }
    }
    return isolation(exec);
  }

  std::optional<Trip> isolation(const Exec& exec) const {
    for (const auto& c : exec.conns) {
      if (c.id.empty()) continue;
      std::set<std::string> senders_to_me;  // ids of other connections that named this agent
      for (const auto& o : exec.conns) {
        if (&o == &c || o.id == c.id) continue;
        for (const auto& t : o.sent) {
          if (t.find(c.id) != std::string::npos) senders_to_me.insert(o.id);
        }
      }
      for (const auto& e : c.events) {
        auto j = event_object(e);
        if (!j || !kDeliveredTypes.count(member_string(*j, "type"))) continue;
        if (senders_to_me.empty()) {
          return Trip{"isolation", member_string(*j, "type") + " delivered to an agent no frame addressed",
                      "agent " + c.label + " got: " + shorten(e.data)};
        }
        const std::string from = member_string(*j, "from");
        if (!from.empty() && !senders_to_me.count(from)) {
          return Trip{"isolation", "forwarded frame names a from that never addressed the recipient",
                      "agent " + c.label + " got: " + shorten(e.data)};
        }
      }
      // Order and completeness, for streams whose sender and receiver both stayed clean.
      for (const auto& s : tracked_streams(exec, c)) {
        if (s.got != s.sent) {
          return Trip{"isolation", "stream chunks lost or reordered",
                      "stream " + s.key + " from " + s.sender->label + " to " + c.label + ": sent " + shorten(dump_text(s.sent)) +
                          ", got " + shorten(dump_text(s.got))};
        }
      }
    }
    return std::nullopt;
  }

  std::optional<Trip> probe(const TargetView& target, const std::string& salt) const override {
    const std::string base = target.config.path("ws") + "?" + target.config.setting("query_parameter", "agent_id") + "=probe" + salt;
    auto p1 = probe_connect(target, base + "-1");
    if (!p1) return p1.error();
    auto p2 = probe_connect(target, base + "-2");
    if (!p2) return p2.error();
    (*p1)->send_text(Json{{"type", "send"}, {"to", "probe" + salt + "-2"}, {"payload", {{"text", "probe"}}}}.dump());
    // A fresh agent gets nothing but the probe's frame: the first text frame on p2 decides (a
    // relay that forwards it in another shape is alive, and judged at once, not after a timeout).
    std::string got;
    const bool delivered = wait_for(**p2, [&](const net::WsEvent& e) {
      if (e.kind != ws::Event::Kind::text) return false;
      got = e.data;
      return true;
    }, target.probe_timeout);
    std::optional<Trip> t;
    if (!delivered) {
      t = probe_unanswered(**p2, target, Trip{"hang", "probe: a valid send between fresh agents was not delivered", "no message in time"});
    } else if (auto j = parse_loose(got); !j.is_object() || member_string(j, "type") != "message") {
      t = Trip{"protocol", "probe: a valid send between fresh agents was delivered as something other than a message", "got: " + shorten(got)};
    }
    (*p1)->close(1000);
    (*p2)->close(1000);
    if (t) return t;
    return std::nullopt;
  }
};

}  // namespace

const Profile& agora_profile() {
  static const Agora p;
  return p;
}

}  // namespace ac::fuzz

#include "reference/agents/agora_agent.hpp"

#include "reference/agents/agents.hpp"
#include "reference/agents/reconnect.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <ostream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/json/strict_reader.hpp"
#include "harness/net/client.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "harness/util/percent_encode.hpp"

namespace ac::ref {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxIncomingStreams = 64;         // streams received and not yet ended
constexpr std::size_t kMaxStreamBytes = 1u << 20;       // counted per incoming stream, not kept

std::string str(const Json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// The opening each client case needs (the relay cannot ask for it): AGORA-LC-101 a one-shot send
// and nothing streamed to the same agent, AGORA-ST-101 one stream, AGORA-ST-102 two streams open at
// once. Any other case gets them all, one after another.
AgoraScript script_for_case(const std::string& case_id) {
  if (case_id == "AGORA-LC-101") return AgoraScript::oneshot;
  if (case_id == "AGORA-ST-101") return AgoraScript::stream;
  if (case_id == "AGORA-ST-102") return AgoraScript::two_streams;
  return AgoraScript::all;
}

std::optional<AgoraScript> parse_script(const std::string& s) {
  if (s == "none") return AgoraScript::none;
  if (s == "oneshot") return AgoraScript::oneshot;
  if (s == "stream") return AgoraScript::stream;
  if (s == "two-streams") return AgoraScript::two_streams;
  if (s == "all") return AgoraScript::all;
  return std::nullopt;
}

class Session {
 public:
  Session(const AgoraAgentOptions& o, std::shared_ptr<net::WsClient> c, std::ostream& log) : o_(o), c_(std::move(c)), log_(log) {}

  void run_script() {
    switch (o_.script) {
      case AgoraScript::none: break;
      case AgoraScript::oneshot: oneshot(); break;
      case AgoraScript::stream: streams(1); break;
      case AgoraScript::two_streams: streams(2); break;
      case AgoraScript::all:
        oneshot();
        streams(1);
        streams(2);
        break;
    }
  }

  void handle_text(const std::string& text) {
    auto m = json::parse_strict(text);
    if (!m || !m->is_object()) {
      log_ << "ignored a relay frame that is not a JSON object\n";
      return;
    }
    handle(*m);
  }

 private:
  // §1 Non-streaming: send with to and payload, no stream, nothing after it.
  void oneshot() {
    Json f = {{"type", "send"}, {"to", o_.to}, {"payload", {{"action", "query"}, {"request_id", "req-" + proto::typed::new_uuid_v4()}, {"body", {{"question", "ping?"}}}}}};
    if (o_.oneshot_stream_true) f["stream"] = true;
    send(f);
    if (o_.end_oneshot) send({{"type", "send_end"}, {"to", o_.to}, {"stream_id", "oneshot-" + proto::typed::new_uuid_v4()}});
  }

  // §1 Stream: send(stream true, stream_id) -> send_chunk (several) -> send_end, `count` streams
  // open at once (their frames interleaved), each with its own stream_id ("Unique id for this
  // streaming session").
  void streams(int count) {
    std::vector<std::string> ids;
    for (int i = 0; i < count; ++i) {
      ids.push_back(o_.reuse_stream_id ? "stream-1" : "stream-" + proto::typed::new_uuid_v4());
      send({{"type", "send"}, {"to", o_.to}, {"stream_id", ids.back()}, {"stream", true},
            {"payload", {{"action", "query"}, {"request_id", "req-" + proto::typed::new_uuid_v4()}}}});
    }
    for (const char* piece : {"This is", " a segment"}) {
      for (const auto& id : ids)
        send({{"type", "send_chunk"}, {"to", o_.to}, {"stream_id", o_.chunk_wrong_stream_id ? id + "-x" : id}, {"chunk", piece}});
    }
    if (o_.no_send_end) return;
    for (const auto& id : ids) {
      send({{"type", "send_end"}, {"to", o_.to}, {"stream_id", id}});
      if (o_.chunk_after_end) send({{"type", "send_chunk"}, {"to", o_.to}, {"stream_id", id}, {"chunk", "late"}});
    }
  }

  struct Incoming {
    Json request_id;  // null when the start had none
    std::size_t bytes = 0;
  };

  void handle(const Json& m) {
    const std::string type = str(m, "type");
    const std::string from = str(m, "from");
    const std::string sid = str(m, "stream_id");
    if (type == "error") {
      log_ << "relay error " << str(m, "code") << ": " << str(m, "message").substr(0, 200) << (sid.empty() ? "" : " (stream " + sid.substr(0, 64) + ")") << "\n";
      return;
    }
    if (type != "message" && type != "message_chunk" && type != "message_end") return;  // replies to us, or frames we do not take
    if (from.empty()) {
      log_ << "ignored a " << type << " without from\n";
      return;
    }
    const Json payload = m.contains("payload") && m["payload"].is_object() ? m["payload"] : Json::object();
    const bool streamed = m.contains("stream") && m["stream"] == true;
    if (type == "message" && !streamed) {
      // §3 Non-streaming reply: reply with to and payload, the request's request_id in it.
      Json reply_payload = {{"answer", "received"}};
      if (payload.contains("request_id") && !o_.drop_request_id) reply_payload["request_id"] = payload["request_id"];
      send({{"type", "reply"}, {"to", from}, {"payload", reply_payload}});
      return;
    }
    if (sid.empty()) {
      log_ << "ignored a streamed " << type << " without stream_id\n";
      return;
    }
    const auto key = std::make_pair(from, sid);
    if (type == "message") {
      if (incoming_.size() >= kMaxIncomingStreams && incoming_.count(key) == 0) {
        log_ << "ignored a stream start: " << kMaxIncomingStreams << " streams already open\n";
        return;
      }
      incoming_[key] = Incoming{payload.contains("request_id") ? payload["request_id"] : Json()};
      return;
    }
    auto it = incoming_.find(key);
    if (it == incoming_.end()) {
      log_ << "ignored a " << type << " of an unknown stream\n";
      return;
    }
    if (type == "message_chunk") {
      if (m.contains("chunk") && m["chunk"].is_string()) it->second.bytes = std::min(kMaxStreamBytes, it->second.bytes + m["chunk"].get_ref<const std::string&>().size());
      return;
    }
    // message_end: §3 Streaming reply (reply / reply_chunk / reply_end, a new stream_id).
    Json reply_payload = Json::object();
    if (!it->second.request_id.is_null() && !o_.drop_request_id) reply_payload["request_id"] = it->second.request_id;
    const std::string rid = "reply-" + proto::typed::new_uuid_v4();
    send({{"type", "reply"}, {"to", from}, {"stream", true}, {"stream_id", rid}, {"payload", reply_payload}});
    send({{"type", "reply_chunk"}, {"to", from}, {"stream_id", rid}, {"chunk", "received " + std::to_string(it->second.bytes) + " bytes"}});
    send({{"type", "reply_end"}, {"to", from}, {"stream_id", rid}});
    incoming_.erase(it);
  }

  void send(const Json& f) { c_->send_text(f.dump(-1, ' ', false, Json::error_handler_t::replace)); }

  const AgoraAgentOptions& o_;
  std::shared_ptr<net::WsClient> c_;
  std::ostream& log_;
  std::map<std::pair<std::string, std::string>, Incoming> incoming_;
};

}  // namespace

int run_agora_agent(const AgoraAgentOptions& o, const std::atomic<bool>& stop, std::ostream& log) {
  net::Runtime runtime(1);
  bool reached = false;
  const std::string url = o.url + (o.url.find('?') == std::string::npos ? "?" : "&") + percent_encode(o.query_parameter) + "=" + percent_encode(o.agent_id);
  run_reconnecting(o.max_connections, o.reconnect_delay, stop, [&] {
    auto client = net::WsClient::connect(runtime, url, {});
    if (!client) {
      if (client.error().kind == net::ClientError::Kind::refused) reached = true;
      log << "cannot connect to " << o.url << ": " << client.error().describe() << "\n";
      return Attempt::failed;
    }
    reached = true;
    Session session(o, *client, log);
    session.run_script();
    return serve_session(**client, {.frame_source = "relay",
                                    .on_text = [&](const std::string& text) { session.handle_text(text); },
                                    .wait = [] { return std::chrono::milliseconds(50); }},
                         stop, log);
  });
  return reached ? 0 : 3;
}

ReferenceAgent agora_reference_agent() {
  ReferenceAgent a;
  a.protocol = "agora";
  a.path = "/agora/ws";
  a.misbehaviours = {
      {"oneshot-stream-true", "flags its one-shot send stream: true"},
      {"end-oneshot", "follows a one-shot send with a send_end"},
      {"chunk-wrong-stream-id", "sends a stream's chunks with another stream_id than its start"},
      {"no-send-end", "never ends its streams with send_end"},
      {"chunk-after-end", "sends one more send_chunk after a stream's send_end"},
      {"reuse-stream-id", "gives every stream the same stream_id, also two streams open at once"},
      {"drop-request-id", "replies without the request's request_id"},
  };
  a.run = [](const AgentRun& r, const std::atomic<bool>& stop, std::ostream& log) {
    AgoraAgentOptions o;
    const char* case_id = std::getenv("AGENTCONFORM_CASE");
    o.script = script_for_case(case_id != nullptr ? case_id : "");
    for (const auto& [key, value] : r.settings) {
      if (value.empty()) {
        log << "agent: --set " << key << " must not be empty\n";
        return 2;
      }
      if (key == "script") {
        auto s = parse_script(value);
        if (!s) {
          log << "agent: --set script=" << value << " is not one of none, oneshot, stream, two-streams, all\n";
          return 2;
        }
        o.script = *s;
      } else if (key == "to") {
        o.to = value;
      } else if (key == "query_parameter") {
        o.query_parameter = value;
      } else {
        log << "agent: unknown --set " << key << " for the agora agent (it reads script, to, query_parameter)\n";
        return 2;
      }
    }
    o.url = r.url;
    if (!r.agent_id.empty()) o.agent_id = r.agent_id;
    if (!r.protocol_version.empty()) {
      log << "agent: Agora has no protocol version; drop --protocol-version\n";
      return 2;
    }
    o.max_connections = r.max_connections;
    for (const auto& m : r.misbehave) {
      if (m == "oneshot-stream-true") o.oneshot_stream_true = true;
      if (m == "end-oneshot") o.end_oneshot = true;
      if (m == "chunk-wrong-stream-id") o.chunk_wrong_stream_id = true;
      if (m == "no-send-end") o.no_send_end = true;
      if (m == "chunk-after-end") o.chunk_after_end = true;
      if (m == "reuse-stream-id") o.reuse_stream_id = true;
      if (m == "drop-request-id") o.drop_request_id = true;
    }
    return run_agora_agent(o, stop, log);
  };
  return a;
}

}  // namespace ac::ref

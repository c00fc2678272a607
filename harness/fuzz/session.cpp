// Sessions on disk: steps as JSON, payloads that are not UTF-8 as base64, so a reproducer holds
// the exact bytes. Reading is defensive (a reproducer may be hand-edited): every member is
// checked for its type and range, and errors name the step.
#include "harness/fuzz/session.hpp"

#include <algorithm>

#include "harness/crypto/base64.hpp"
#include "harness/websocket/frame.hpp"

namespace ac::fuzz {
namespace {

constexpr std::size_t kMaxSteps = 10000;
constexpr int kMaxRepeat = 10000;
constexpr int kMaxSleepMs = 60000;

struct KindName {
  Step::Kind kind;
  const char* name;
};
constexpr KindName kKinds[] = {{Step::Kind::connect, "connect"}, {Step::Kind::http, "http"},     {Step::Kind::text, "text"},
                               {Step::Kind::binary, "binary"},   {Step::Kind::frames, "frames"}, {Step::Kind::close, "close"},
                               {Step::Kind::drop, "drop"},       {Step::Kind::sleep, "sleep"},   {Step::Kind::await, "await"}};

const char* kind_name(Step::Kind k) {
  for (const auto& e : kKinds) {
    if (e.kind == k) return e.name;
  }
  return "text";
}

void put_bytes(Json& out, const std::string& bytes) {
  if (ws::is_valid_utf8(bytes)) {
    out["data"] = bytes;
  } else {
    out["data_b64"] = crypto::base64_encode(bytes);
  }
}

Expected<std::string, std::string> get_bytes(const Json& in) {
  if (auto it = in.find("data"); it != in.end()) {
    if (!it->is_string()) return unexpected(std::string("\"data\" must be a string"));
    return it->get<std::string>();
  }
  if (auto it = in.find("data_b64"); it != in.end()) {
    if (!it->is_string()) return unexpected(std::string("\"data_b64\" must be a string"));
    auto bytes = crypto::base64_decode(it->get<std::string>());
    if (!bytes) return unexpected("\"data_b64\": " + bytes.error().describe());
    return *bytes;
  }
  return std::string();
}

Expected<std::map<std::string, std::string>, std::string> get_string_map(const Json& in, const char* key) {
  std::map<std::string, std::string> out;
  auto it = in.find(key);
  if (it == in.end()) return out;
  if (!it->is_object()) return unexpected(std::string("\"") + key + "\" must be an object of strings");
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) return unexpected(std::string("\"") + key + "\" must be an object of strings");
    out[k] = v.get<std::string>();
  }
  return out;
}

// An integer member within [lo, hi], or the fallback when absent.
Expected<long long, std::string> get_int(const Json& in, const char* key, long long fallback, long long lo, long long hi) {
  auto it = in.find(key);
  if (it == in.end()) return fallback;
  if (!it->is_number_integer()) return unexpected(std::string("\"") + key + "\" must be an integer");
  const long long v = it->get<long long>();
  if (v < lo || v > hi) return unexpected(std::string("\"") + key + "\" must be in " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

Expected<RawFrame, std::string> frame_from_json(const Json& fj) {
  if (!fj.is_object()) return unexpected(std::string("each frame is an object"));
  RawFrame f;
  auto op = get_int(fj, "opcode", 1, 0, 15);
  auto rsv = get_int(fj, "rsv", 0, 0, 7);
  auto delay = get_int(fj, "delay_ms", 0, 0, kMaxSleepMs);
  if (!op) return unexpected(op.error());
  if (!rsv) return unexpected(rsv.error());
  if (!delay) return unexpected(delay.error());
  f.opcode = static_cast<std::uint8_t>(*op);
  f.rsv = static_cast<std::uint8_t>(*rsv);
  f.delay_ms = static_cast<int>(*delay);
  const Json fin = fj.value("fin", Json(true));
  if (!fin.is_boolean()) return unexpected(std::string("\"fin\" must be a boolean"));
  f.fin = fin.get<bool>();
  auto bytes = get_bytes(fj);
  if (!bytes) return unexpected(bytes.error());
  f.payload = std::move(*bytes);
  return f;
}

}  // namespace

Expected<Protocol, std::string> parse_protocol(std::string_view name) {
  for (Protocol p : kAllProtocols) {
    if (protocol_name(p) == name) return p;
  }
  return unexpected("unknown protocol \"" + std::string(name) + "\" (alp, agora, agentprotocol, a2acp, chopsticks)");
}

std::string_view protocol_name(Protocol p) {
  switch (p) {
    case Protocol::alp: return "alp";
    case Protocol::agora: return "agora";
    case Protocol::agentprotocol: return "agentprotocol";
    case Protocol::a2acp: return "a2acp";
    case Protocol::chopsticks: return "chopsticks";
  }
  return "alp";
}

std::size_t Session::frame_count() const {
  std::size_t n = 0;
  for (const auto& s : steps) {
    if (s.kind == Step::Kind::frames) n += s.frames.size();
    else if (s.kind == Step::Kind::text) n += static_cast<std::size_t>(std::max(1, s.repeat));
    else if (s.kind == Step::Kind::binary || s.kind == Step::Kind::close) n += 1;
  }
  return n;
}

Json steps_to_json(const std::vector<Step>& steps) {
  Json out = Json::array();
  for (const auto& s : steps) {
    Json j{{"conn", s.conn}, {"action", kind_name(s.kind)}};
    switch (s.kind) {
      case Step::Kind::frames:
        j["frames"] = Json::array();
        for (const auto& f : s.frames) {
          Json fj{{"opcode", f.opcode}, {"fin", f.fin}, {"rsv", f.rsv}};
          if (f.delay_ms > 0) fj["delay_ms"] = f.delay_ms;
          put_bytes(fj, f.payload);
          j["frames"].push_back(std::move(fj));
        }
        break;
      case Step::Kind::close: j["code"] = s.code; break;
      case Step::Kind::drop: break;
      case Step::Kind::sleep: j["ms"] = s.ms; break;
      case Step::Kind::await:
        j["ms"] = s.ms;
        put_bytes(j, s.data);
        break;
      case Step::Kind::http:
        j["method"] = s.method;
        j["path"] = s.path;
        put_bytes(j, s.data);
        break;
      default: put_bytes(j, s.data); break;
    }
    if (!s.headers.empty()) j["headers"] = s.headers;
    if (!s.capture.empty()) j["capture"] = s.capture;
    if (!s.sign.empty()) j["sign"] = s.sign;
    if (s.repeat != 1) j["repeat"] = s.repeat;
    if (!s.mutation.empty()) j["mutation"] = s.mutation;
    out.push_back(std::move(j));
  }
  return out;
}

Expected<std::vector<Step>, std::string> steps_from_json(const Json& doc) {
  if (!doc.is_array()) return unexpected(std::string("\"steps\" must be an array"));
  if (doc.size() > kMaxSteps) return unexpected("too many steps (at most " + std::to_string(kMaxSteps) + ")");
  std::vector<Step> out;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const Json& j = doc[i];
    const std::string where = "steps[" + std::to_string(i) + "]: ";
    if (!j.is_object() || !j.contains("conn") || !j["conn"].is_string() || !j.contains("action") || !j["action"].is_string()) {
      return unexpected(where + "needs string members \"conn\" and \"action\"");
    }
    Step s;
    s.conn = j["conn"].get<std::string>();
    const std::string action = j["action"].get<std::string>();
    bool known = false;
    for (const auto& e : kKinds) {
      if (action == e.name) {
        s.kind = e.kind;
        known = true;
      }
    }
    if (!known) return unexpected(where + "unknown action \"" + action + "\"");
    auto headers = get_string_map(j, "headers");
    auto capture = get_string_map(j, "capture");
    if (!headers) return unexpected(where + headers.error());
    if (!capture) return unexpected(where + capture.error());
    s.headers = std::move(*headers);
    s.capture = std::move(*capture);
    if (auto m = j.find("mutation"); m != j.end()) {
      if (!m->is_string()) return unexpected(where + "\"mutation\" must be a string");
      s.mutation = m->get<std::string>();
    }
    if (auto sign = j.find("sign"); sign != j.end()) {
      if (!sign->is_string()) return unexpected(where + "\"sign\" must be a string");
      s.sign = sign->get<std::string>();
    }
    auto repeat = get_int(j, "repeat", 1, 1, kMaxRepeat);
    auto ms = get_int(j, "ms", 0, 0, kMaxSleepMs);
    auto code = get_int(j, "code", 1000, 0, 65535);
    if (!repeat) return unexpected(where + repeat.error());
    if (!ms) return unexpected(where + ms.error());
    if (!code) return unexpected(where + code.error());
    s.repeat = static_cast<int>(*repeat);
    s.ms = static_cast<int>(*ms);
    s.code = static_cast<std::uint16_t>(*code);
    if (s.kind == Step::Kind::http) {
      const Json method = j.value("method", Json("POST"));
      const Json path = j.value("path", Json("/"));
      if (!method.is_string() || !path.is_string()) return unexpected(where + "\"method\" and \"path\" must be strings");
      s.method = method.get<std::string>();
      s.path = path.get<std::string>();
    }
    if (s.kind == Step::Kind::frames) {
      if (!j.contains("frames") || !j["frames"].is_array()) return unexpected(where + "\"frames\" must be an array");
      if (j["frames"].size() > kMaxSteps) return unexpected(where + "too many frames");
      for (const auto& fj : j["frames"]) {
        auto f = frame_from_json(fj);
        if (!f) return unexpected(where + f.error());
        s.frames.push_back(std::move(*f));
      }
    } else {
      auto bytes = get_bytes(j);
      if (!bytes) return unexpected(where + bytes.error());
      s.data = std::move(*bytes);
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> mutation_tags(const std::vector<Step>& steps) {
  std::vector<std::string> out;
  for (const auto& s : steps) {
    std::size_t at = 0;
    while (at < s.mutation.size()) {
      const std::size_t end = std::min(s.mutation.find("; ", at), s.mutation.size());
      const std::string one = s.mutation.substr(at, end - at);
      if (!one.empty() && std::find(out.begin(), out.end(), one) == out.end()) out.push_back(one);
      at = end + 2;
    }
  }
  return out;
}

void tag(Step& step, const std::string& mutation) {
  if (mutation.empty() || step.mutation.find(mutation) != std::string::npos) return;
  step.mutation += (step.mutation.empty() ? "" : "; ") + mutation;
}

Step connect_step(std::string conn, std::string path_and_query, std::map<std::string, std::string> headers) {
  Step s;
  s.kind = Step::Kind::connect;
  s.conn = std::move(conn);
  s.data = std::move(path_and_query);
  s.headers = std::move(headers);
  return s;
}

Step text_step(std::string conn, const Json& message, std::string sign) {
  Step s;
  s.kind = Step::Kind::text;
  s.conn = std::move(conn);
  s.data = message.dump();
  s.sign = std::move(sign);
  return s;
}

Step http_step(std::string conn, std::string method, std::string path, const Json& body, std::map<std::string, std::string> capture,
               std::map<std::string, std::string> headers) {
  Step s;
  s.kind = Step::Kind::http;
  s.conn = std::move(conn);
  s.method = std::move(method);
  s.path = std::move(path);
  s.data = body.is_null() ? std::string() : body.dump();
  s.capture = std::move(capture);
  s.headers = std::move(headers);
  return s;
}

Step await_step(std::string conn, std::string needle, std::map<std::string, std::string> capture, int ms) {
  Step s;
  s.kind = Step::Kind::await;
  s.conn = std::move(conn);
  s.data = std::move(needle);
  s.capture = std::move(capture);
  s.ms = ms;
  return s;
}

Step close_step(std::string conn, std::uint16_t code) {
  Step s;
  s.kind = Step::Kind::close;
  s.conn = std::move(conn);
  s.code = code;
  return s;
}

}  // namespace ac::fuzz

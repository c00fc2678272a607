// Defaults of the Profile hooks and the helpers every profile uses.
#include "harness/fuzz/profile.hpp"

#include "harness/json/strict_reader.hpp"

namespace ac::fuzz {

std::size_t pick(Rng& rng, std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); }
bool chance(Rng& rng, double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < p; }

std::string Profile::structure(Rng&, std::vector<Step>&) const { return {}; }
std::string Profile::auth(Rng&, std::vector<Step>&) const { return {}; }
std::optional<std::string> Profile::resolve(Exec&, const TargetView&, const std::string&) const { return std::nullopt; }
std::string Profile::finish_text(Exec&, const Step&, std::string payload) const { return payload; }
void Profile::connected(Exec&, ConnRecord&, const Step&) const {}
void Profile::sent(Exec&, ConnRecord&, const std::string&) const {}
bool Profile::satisfied(const Exec&) const { return true; }

std::optional<Json> strict_object(const std::string& text) {
  json::ReadLimits limits;
  limits.max_bytes = 1024 * 1024;
  auto parsed = json::parse_strict(text, limits);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  return std::move(*parsed);
}

Json parse_loose(std::string_view text) {
  // Brackets outside strings: a cheap upper bound on the depth nlohmann would build.
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kLooseDepth) return Json(Json::value_t::discarded);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return Json::parse(text, nullptr, false);
}

std::optional<Json> plain_object(const std::string& text) {
  if (text.starts_with("\xEF\xBB\xBF")) return std::nullopt;
  return strict_object(text);
}

bool plain_json_object(const std::string& text) { return plain_object(text).has_value(); }

std::string lenient_member(const std::string& text, const char* key) {
  const std::string quoted = std::string("\"") + key + "\"";
  for (std::size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1)) {
    std::size_t i = at + quoted.size();
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
    if (i >= text.size() || text[i] != ':') continue;
    ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
    if (i >= text.size() || text[i] != '"') continue;
    const std::size_t end = text.find('"', i + 1);
    if (end == std::string::npos) return {};
    return text.substr(i + 1, end - i - 1);
  }
  return {};
}

std::optional<Json> event_object(const net::WsEvent& e) {
  if (e.kind != ws::Event::Kind::text || e.invalid_utf8) return std::nullopt;
  Json j = parse_loose(e.data);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

const Json* event_object(const Received& e) {
  if (!e.object) e.object = event_object(static_cast<const net::WsEvent&>(e));
  return *e.object ? &**e.object : nullptr;
}

std::string shorten(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  // Cut at a character boundary: a JSON string must stay valid UTF-8.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "...";
}

std::string dump_text(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string member_string(const Json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const Json& at_path(const Json& j, std::initializer_list<const char*> path) {
  static const Json null_value;
  const Json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return null_value;
    auto it = at->find(key);
    if (it == at->end()) return null_value;
    at = &*it;
  }
  return *at;
}

std::string string_at(const Json& j, std::initializer_list<const char*> path) {
  const Json& v = at_path(j, path);
  return v.is_string() ? v.get<std::string>() : std::string();
}

bool wait_for(net::WsClient& ws, const std::function<bool(const net::WsEvent&)>& want, std::chrono::milliseconds budget) {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + budget;
  while (Clock::now() < until) {
    auto e = ws.next(std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()));
    if (!e) return false;
    if (want(*e)) return true;
    if (e->kind == ws::Event::Kind::close) return false;
  }
  return false;
}

Trip probe_unanswered(net::WsClient& ws, const TargetView& target, Trip hang) {
  ws.ping("alive?");
  const bool pong = wait_for(ws, [](const net::WsEvent& e) { return e.kind == ws::Event::Kind::pong && e.data == "alive?"; },
                             target.probe_timeout);
  if (!pong) return hang;
  return Trip{"protocol", hang.signature + " (it answers pings: alive, but not as the spec says)", hang.detail};
}

Expected<std::shared_ptr<net::WsClient>, Trip> probe_connect(const TargetView& target, const std::string& path_and_query,
                                                             net::Headers headers) {
  net::WsConnectOptions opts;
  opts.timeout = target.probe_timeout;
  opts.tls = target.config.tls;
  opts.headers = std::move(headers);
  auto ws = net::WsClient::connect(*target.runtime, target.config.ws_base + path_and_query, opts);
  if (ws) return std::move(*ws);
  if (ws.error().kind == net::ClientError::Kind::timeout) {
    return unexpected(Trip{"hang", "probe: WebSocket handshake not answered in time", ws.error().describe()});
  }
  if (ws.error().kind == net::ClientError::Kind::refused) {
    return unexpected(Trip{"liveness", "probe: a valid WebSocket connection was refused",
                           path_and_query + " -> " + std::to_string(ws.error().status) + " " + shorten(ws.error().body)});
  }
  return unexpected(Trip{"liveness", "target unreachable", "probe connection: " + ws.error().describe()});
}

Expected<net::HttpResult, Trip> probe_http(const TargetView& target, const std::string& method, const std::string& path,
                                           const std::string& body, net::Headers headers) {
  net::HttpCall call;
  call.method = method;
  call.url = target.config.http_base + path;
  call.body = body;
  call.headers = std::move(headers);
  if (!body.empty() && call.headers.find("content-type") == call.headers.end()) call.headers.emplace("content-type", "application/json");
  call.timeout = target.probe_timeout;
  call.tls = target.config.tls;
  auto r = net::http_request(*target.runtime, call);
  if (r) return std::move(*r);
  if (r.error().kind == net::ClientError::Kind::timeout) {
    return unexpected(Trip{"hang", "probe: HTTP request not answered in time", method + " " + path + ": " + r.error().describe()});
  }
  return unexpected(Trip{"liveness", "target unreachable", method + " " + path + ": " + r.error().describe()});
}

void owe_error(ConnRecord& c, const std::string& payload, const std::string& code, const std::string& why) {
  Json& owed = c.expect["errors"];
  if (!owed.is_array()) owed = Json::array();
  Json entry{{"code", code}, {"frame", shorten(payload)}};
  if (!why.empty()) entry["why"] = why;
  owed.push_back(std::move(entry));
}

namespace {
const Json& owed_of(const ConnRecord& c) {
  static const Json none = Json::array();
  const auto it = c.expect.find("errors");
  return it != c.expect.end() && it->is_array() ? *it : none;
}
}  // namespace

bool owed_errors_arrived(const Exec& exec, const ErrorsOf& errors_of) {
  for (const auto& c : exec.conns) {
    if (c.clean && !c.closed && errors_of(c).size() < owed_of(c).size()) return false;
  }
  return true;
}

std::optional<Trip> judge_owed_errors(const Exec& exec, const ErrorsOf& errors_of, const std::function<std::string(const Json&)>& code_of,
                                      const OwedErrorRule& rule) {
  for (const auto& c : exec.conns) {
    if (!c.clean) continue;
    const Json& owed = owed_of(c);
    const auto errors = errors_of(c);
    if (errors.size() < owed.size()) {
      return Trip{"protocol", rule.missing,
                  std::to_string(owed.size()) + " owed, " + std::to_string(errors.size()) + " error(s) on connection " + c.label +
                      "; first owed: " + dump_text(owed[0])};
    }
    std::size_t named = 0, matching = 0;
    const Json* first_named = nullptr;
    for (const auto& o : owed) {
      if (!o.is_object() || o.value("code", "") != rule.named) continue;
      ++named;
      if (first_named == nullptr) first_named = &o;
    }
    std::string codes;
    for (const auto& e : errors) {
      const std::string code = code_of(e);
      matching += rule.accepted.contains(code);
      codes += (codes.empty() ? "" : " ") + code;
    }
    if (matching < named) {
      return Trip{"protocol", rule.wrong_code,
                  std::to_string(named) + " owed " + rule.named + ", " + std::to_string(matching) + " came on connection " + c.label +
                      " (codes seen: " + codes + "); first: " + dump_text(*first_named)};
    }
  }
  return std::nullopt;
}

bool sent_untracked(const Exec& exec, const std::string& frame) {
  // Every connection, clean ones too: a clean connection may send text the profile does not
  // track (a byte-order mark before the JSON is valid UTF-8), which a relay may forward as is.
  for (const auto& o : exec.conns) {
    for (const auto& t : o.sent) {
      if (t == frame) return true;
    }
  }
  return false;
}

}  // namespace ac::fuzz

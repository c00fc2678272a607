#include "harness/engine/runner.hpp"

#include <openssl/evp.h>

#include <thread>

#include "harness/engine/driver.hpp"
#include "harness/engine/matcher.hpp"
#include "harness/engine/tls_steps.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/protocols/typed/stamp.hpp"

namespace ac::engine {
namespace {

using Clock = std::chrono::steady_clock;
// The largest repeat count a case may ask for (schemas/scenario.schema.json says the same).
constexpr std::int64_t kMaxRepeat = 10000;
using ms = std::chrono::milliseconds;

struct StepFailure {
  enum class Kind { fail, error, not_applicable };
  Kind kind = Kind::fail;
  std::string path;
  Json step;
  std::string message;
  std::string expected;
  std::string actual;
  std::vector<std::string> checks;  // the requirements the failing step checks ("checks"), innermost first
  std::string request;              // the request that got the failing answer ("POST /api/v1/register")
  std::string answer;               // that answer, short ("HTTP 404"), for grouping failures by root cause
};

std::string show(const Json& j, std::size_t limit = 600) {
  std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  return s.size() > limit ? s.substr(0, limit) + "..." : s;
}

std::string show_text(const std::string& s, std::size_t limit = 600) {
  return s.size() > limit ? s.substr(0, limit) + "... (" + std::to_string(s.size()) + " bytes)" : s;
}

std::string action_of(const Json& step) {
  for (const char* a : {"connect", "send", "expect", "http", "disconnect", "abort", "sleep_ms", "repeat", "parallel", "set",
                        "accept", "expect_http", "hangup", "trigger", "tls_handshake", "plaintext"}) {
    if (step.contains(a)) return a;
  }
  return "?";
}

std::optional<std::vector<int>> wanted_codes(const Json& spec) {
  std::vector<int> out;
  if (spec.is_number_integer()) out.push_back(spec.get<int>());
  else if (spec.is_array()) {
    for (const auto& c : spec) {
      if (c.is_number_integer()) out.push_back(c.get<int>());
    }
  } else {
    return std::nullopt;  // "any"
  }
  return out;
}

std::string codes_text(const std::optional<std::vector<int>>& codes) {
  if (!codes) return "any";
  std::string out;
  for (std::size_t i = 0; i < codes->size(); ++i) out += (i ? " or " : "") + std::to_string((*codes)[i]);
  return out;
}

std::optional<std::string> base64_decode(const std::string& in) {
  if (in.size() % 4 != 0) return std::nullopt;
  std::string out(in.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  if (n < 0) return std::nullopt;
  std::size_t pad = 0;
  if (!in.empty() && in.back() == '=') ++pad;
  if (in.size() > 1 && in[in.size() - 2] == '=') ++pad;
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

class StepRunner {
 public:
  StepRunner(const Case& kase, const Driver& driver, CaseEnv& env, const CaseOptions& options, Clock::time_point deadline,
             ClientHub* hub)
      : kase_(kase), driver_(driver), env_(env), options_(options), deadline_(deadline), hub_(hub) {}

  std::optional<StepFailure> run(const Json& steps, const std::string& prefix) {
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const std::string path = prefix.empty() ? std::to_string(i + 1) : prefix + "." + std::to_string(i + 1);
      if (options_.cancel != nullptr && options_.cancel->load()) {
        return StepFailure{StepFailure::Kind::error, path, steps[i], "interrupted before this step", "", "", {}, "", ""};
      }
      if (Clock::now() >= deadline_) {
        return StepFailure{StepFailure::Kind::fail, path, steps[i], "the case deadline passed before this step", "", "case timeout", {}, "", ""};
      }
      if (auto f = step(steps[i], path)) {
        // A failure inside a repeat or parallel blames the innermost step that names its checks.
        if (f->checks.empty() && steps[i].contains("checks")) f->checks = steps[i]["checks"].get<std::vector<std::string>>();
        return f;
      }
    }
    return std::nullopt;
  }

 private:
  ms scaled(ms base) const { return ms(static_cast<std::int64_t>(static_cast<double>(base.count()) * options_.timeout_scale)); }

  ms wait_for(const Json& step, const char* key = "timeout_ms") const {
    ms t = step.contains(key) ? scaled(ms(step[key].get<std::int64_t>())) : env_.step_timeout;
    const auto left = std::chrono::duration_cast<ms>(deadline_ - Clock::now());
    return std::max(ms(0), std::min(t, left));
  }

  StepFailure failure(const Json& step, const std::string& path, std::string message, std::string expected = "",
                      std::string actual = "", StepFailure::Kind kind = StepFailure::Kind::fail) {
    return StepFailure{kind, path, step, std::move(message), std::move(expected), std::move(actual), {}, "", ""};
  }
  StepFailure harness_error(const Json& step, const std::string& path, std::string message) {
    return failure(step, path, std::move(message), "", "", StepFailure::Kind::error);
  }

  AgentSession* agent(const std::string& name) {
    auto it = env_.agents.find(name);
    return it == env_.agents.end() ? nullptr : &it->second;
  }

  std::optional<StepFailure> step(const Json& s, const std::string& path) {
    const std::string action = action_of(s);
    if (s.contains("note")) env_.transcript.note("step " + path + ": " + s["note"].get<std::string>());
    if (action == "connect") return do_connect(s, path);
    if (action == "send") return do_send(s, path);
    if (action == "expect") return do_expect(s, path);
    if (action == "http") return do_http(s, path);
    if (action == "tls_handshake" || action == "plaintext") return do_tls(s, path, action);
    if (action == "disconnect") return do_disconnect(s, path);
    if (action == "abort") {
      AgentSession* a = agent(s["abort"].get<std::string>());
      if (a == nullptr || !a->channel) return harness_error(s, path, "agent " + s["abort"].get<std::string>() + " is not connected");
      a->channel->abort();
      return std::nullopt;
    }
    if (action == "sleep_ms") {
      const auto until = std::min(deadline_, Clock::now() + ms(s["sleep_ms"].get<std::int64_t>()));
      std::this_thread::sleep_until(until);
      return std::nullopt;
    }
    if (action == "repeat") {
      // A count, or a whole ${variable} a driver derives from target.json (ALP-ERR-025 sends
      // ${rate_limit.burst}: a fixed burst says nothing about a lobby whose limit is higher).
      auto count = env_.vars.substitute(s["repeat"]);
      if (!count) return harness_error(s, path, "repeat: " + count.error());
      if (!count->is_number_integer() || count->get<std::int64_t>() < 1 || count->get<std::int64_t>() > kMaxRepeat) {
        return harness_error(s, path, "repeat: " + s["repeat"].dump() + " is " + count->dump() + ", not a count from 1 to " +
                                          std::to_string(kMaxRepeat) + " (check the target.json setting behind it)");
      }
      const int n = static_cast<int>(count->get<std::int64_t>());
      for (int i = 0; i < n; ++i) {
        env_.vars.set("i", i);
        if (auto f = run(s.value("steps", Json::array()), path + ".repeat[" + std::to_string(i) + "]")) return f;
      }
      return std::nullopt;
    }
    if (action == "parallel") return do_parallel(s, path);
    if (action == "set") {
      for (const auto& [k, v] : s["set"].items()) {
        auto value = env_.vars.substitute(v);
        if (!value) return harness_error(s, path, value.error());
        env_.vars.set(k, *value);
      }
      return std::nullopt;
    }
    if (action == "trigger") {
      auto params = env_.vars.substitute(s.value("params", Json::object()));
      if (!params) return harness_error(s, path, params.error());
      // A trigger may wait on the target (an RPC to an agent): its own timeout_ms bounds it.
      const auto saved = env_.step_timeout;
      if (s.contains("timeout_ms")) env_.step_timeout = wait_for(s);
      auto r = driver_.trigger(s["trigger"].get<std::string>(), *params, env_);
      env_.step_timeout = saved;
      if (!r) return failure(s, path, "trigger " + s["trigger"].get<std::string>() + " failed: " + r.error(), "the action succeeds", r.error());
      if (s.contains("result")) {
        auto pattern = env_.vars.substitute(s["result"]);
        if (!pattern) return harness_error(s, path, pattern.error());
        if (auto m = match(*pattern, *r)) return failure(s, path, "the result does not match: " + m->describe(), show(*pattern), show(*r));
      }
      return capture(s, path, *r);
    }
    if (action == "accept" || action == "expect_http" || action == "hangup") {
      if (hub_ == nullptr) {
        return failure(s, path, "step '" + action + "' exists only in client-under-test mode (agentconform serve)", "", "",
                       StepFailure::Kind::not_applicable);
      }
      if (action == "accept") return do_accept(s, path);
      if (action == "expect_http") return do_expect_http(s, path);
      AgentSession* a = agent(s["hangup"].get<std::string>());
      if (a == nullptr || !a->channel) return harness_error(s, path, "client " + s["hangup"].get<std::string>() + " is not connected");
      a->channel->close(static_cast<std::uint16_t>(s.value("code", 1000)), s.value("reason", std::string()));
      return std::nullopt;
    }
    return harness_error(s, path, "unknown step");
  }

  std::optional<StepFailure> capture(const Json& s, const std::string& path, const Json& value) {
    if (!s.contains("capture")) return std::nullopt;
    for (const auto& [var, ptr] : s["capture"].items()) {
      try {
        const Json::json_pointer p(ptr.get<std::string>());
        if (!value.contains(p)) {
          return failure(s, path, "cannot capture " + var + ": nothing at " + ptr.get<std::string>(),
                         "a value at " + ptr.get<std::string>(), show(value));
        }
        env_.vars.set(var, value.at(p));
      } catch (const std::exception& ex) {
        return harness_error(s, path, "bad capture pointer " + ptr.dump() + ": " + ex.what());
      }
    }
    return std::nullopt;
  }

  std::optional<StepFailure> do_connect(const Json& s, const std::string& path) {
    const std::string name = s["connect"].get<std::string>();
    AgentSession* a = agent(name);
    if (a == nullptr) return harness_error(s, path, "the case declares no agent named " + name);
    auto step = env_.vars.substitute(s);
    if (!step) return harness_error(s, path, step.error());
    const ConnectResult r = driver_.connect(*a, *step, env_);
    const bool expect_refusal = s.contains("status");
    const auto wanted = expect_refusal ? wanted_codes(s["status"]) : std::nullopt;
    switch (r.outcome) {
      case ConnectResult::Outcome::connected:
        if (expect_refusal) {
          return failure(s, path, "the target accepted a connection it must refuse", "refusal with HTTP " + codes_text(wanted),
                         "connection accepted (101 Switching Protocols)");
        }
        return std::nullopt;
      case ConnectResult::Outcome::refused: {
        const bool ok = expect_refusal && (!wanted || std::find(wanted->begin(), wanted->end(), r.status) != wanted->end());
        if (ok) return check_refusal_body(s, path, r);
        auto f = failure(s, path, expect_refusal ? "the connection was refused with the wrong status" : "the target refused the connection",
                         expect_refusal ? "HTTP " + codes_text(wanted) : "connection accepted",
                         (r.request.empty() ? "" : r.request + ": ") + "HTTP " + std::to_string(r.status) +
                             (r.body.empty() ? "" : ": " + show_text(r.body)) + (r.message.empty() ? "" : " (" + r.message + ")"));
        f.request = r.request.empty() ? "connect" : r.request;
        f.answer = r.status != 0 ? "HTTP " + std::to_string(r.status) : r.message;
        return f;
      }
      case ConnectResult::Outcome::unreachable:
        return harness_error(s, path, "target unreachable: " + r.message);
      case ConnectResult::Outcome::harness_error:
        return harness_error(s, path, r.message);
    }
    return std::nullopt;
  }

  std::optional<StepFailure> check_refusal_body(const Json& s, const std::string& path, const ConnectResult& r) {
    if (!s.contains("body")) return std::nullopt;
    auto pattern = env_.vars.substitute(s["body"]);
    if (!pattern) return harness_error(s, path, pattern.error());
    auto body = json::parse_strict(r.body);
    if (!body) return failure(s, path, "the refusal body is not JSON", show(*pattern), show_text(r.body));
    if (auto m = match(*pattern, *body)) return failure(s, path, "the refusal body does not match: " + m->describe(), show(*pattern), show(*body));
    return std::nullopt;
  }

  std::optional<StepFailure> do_send(const Json& s, const std::string& path) {
    const std::string name = s["send"].get<std::string>();
    AgentSession* a = agent(name);
    if (a == nullptr || !a->channel) return harness_error(s, path, "agent " + name + " is not connected");
    if (s.contains("raw")) {
      auto text = env_.vars.substitute_string(s["raw"].get<std::string>());
      if (!text) return harness_error(s, path, text.error());
      a->channel->send_text(*text);
      return std::nullopt;
    }
    if (s.contains("binary_base64")) {
      auto bytes = base64_decode(s["binary_base64"].get<std::string>());
      if (!bytes) return harness_error(s, path, "binary_base64 is not valid base64");
      if (!a->channel->send_binary(*bytes)) {
        return failure(s, path, "binary messages need a WebSocket transport", "", "", StepFailure::Kind::not_applicable);
      }
      return std::nullopt;
    }
    if (s.contains("frame")) {
      const Json& f = s["frame"];
      ws::FrameSpec spec;
      spec.opcode = static_cast<std::uint8_t>(f.value("opcode", 1));
      auto payload = env_.vars.substitute_string(f.value("payload", std::string()));
      if (!payload) return harness_error(s, path, payload.error());
      spec.payload = *payload;
      spec.fin = f.value("fin", true);
      spec.rsv = static_cast<std::uint8_t>(f.value("rsv", 0));
      spec.masked = f.value("masked", true);
      if (f.contains("declared_length")) spec.declared_length = f["declared_length"].get<std::uint64_t>();
      if (!a->channel->send_frame(spec)) {
        return failure(s, path, "raw frames need a WebSocket transport", "", "", StepFailure::Kind::not_applicable);
      }
      return std::nullopt;
    }
    auto message = env_.vars.substitute(s.value("message", Json::object()));
    if (!message) return harness_error(s, path, message.error());
    Json out;
    if (s.value("fill", true)) {
      auto step = env_.vars.substitute(s);
      if (!step) return harness_error(s, path, step.error());
      auto filled = driver_.fill(std::move(*message), *a, *step, env_);
      if (!filled) return harness_error(s, path, "cannot build the message: " + filled.error());
      out = std::move(*filled);
    } else {
      auto edited = apply_edits(std::move(*message), s, env_.vars);
      if (!edited) return harness_error(s, path, edited.error());
      out = std::move(*edited);
    }
    a->channel->send_text(out.dump(-1, ' ', false, Json::error_handler_t::replace));
    if (s.contains("capture")) return capture(s, path, out);  // e.g. the message_id it was sent with
    return std::nullopt;
  }

  bool ignored(const Json& message) const {
    for (const auto& p : kase_.ignore) {
      if (!match(p, message)) return true;
    }
    return false;
  }

  static std::string describe(const Incoming& in) {
    switch (in.kind) {
      case ws::Event::Kind::close:
        return in.transport_closed && in.close_code == 1006 ? std::string("the connection dropped (no close frame)")
                                                            : "close " + std::to_string(in.close_code) +
                                                                  (in.close_reason.empty() ? "" : " \"" + in.close_reason + "\"");
      case ws::Event::Kind::binary: return "a binary message of " + std::to_string(in.data.size()) + " bytes";
      case ws::Event::Kind::violation: return "a WebSocket protocol violation: " + in.data;
      default: return show_text(in.data);
    }
  }

  std::optional<StepFailure> do_expect(const Json& s, const std::string& path) {
    const std::string name = s["expect"].get<std::string>();
    AgentSession* a = agent(name);
    if (a == nullptr || !a->channel) return harness_error(s, path, "agent " + name + " is not connected");
    Channel& ch = *a->channel;
    const auto deadline = Clock::now() + wait_for(s);
    auto left = [&] { return std::max(ms(0), std::chrono::duration_cast<ms>(deadline - Clock::now())); };
    const bool skip = s.value("skip_unmatched", false);

    if (s.contains("silence_ms") || s.contains("no_message")) {
      const bool silence = s.contains("silence_ms");
      Json pattern;
      if (!silence) {
        auto p = env_.vars.substitute(s["no_message"]);
        if (!p) return harness_error(s, path, p.error());
        pattern = *p;
      }
      const ms window = scaled(ms(silence ? s["silence_ms"].get<std::int64_t>() : s.value("within_ms", 1000)));
      const auto until = std::min(deadline_, Clock::now() + window);
      for (;;) {
        const auto w = std::chrono::duration_cast<ms>(until - Clock::now());
        if (w.count() <= 0) return std::nullopt;
        auto in = ch.next(w);
        if (!in) return std::nullopt;
        std::optional<Json> j;
        if (in->kind == ws::Event::Kind::text) {
          if (auto parsed = json::parse_strict(in->data)) j = std::move(*parsed);
        }
        if (j && ignored(*j)) continue;
        if (silence) {
          return failure(s, path, "expected no message for " + std::to_string(window.count()) + " ms", "silence", describe(*in));
        }
        if (j && !match(pattern, *j)) return failure(s, path, "a message that must not arrive arrived", "no message like " + show(pattern), describe(*in));
        if (in->kind == ws::Event::Kind::close) return std::nullopt;
      }
    }

    if (s.contains("close")) {
      const auto codes = wanted_codes(s["close"]);
      // Where the spec leaves two outcomes open (a check that closes, another that ignores the
      // message), a connection that stays open and silent through or_silence_ms is the other one.
      const bool or_silence = s.contains("or_silence_ms");
      const auto close_by = or_silence ? std::min(deadline, Clock::now() + scaled(ms(s["or_silence_ms"].get<std::int64_t>()))) : deadline;
      bool skipped = false;
      for (;;) {
        auto in = ch.next(std::max(ms(0), std::chrono::duration_cast<ms>(close_by - Clock::now())));
        if (!in && or_silence && !skipped) {
          env_.transcript.note("step " + path + ": the connection stayed open and silent: the outcome other than a close");
          return std::nullopt;
        }
        if (!in && or_silence) {
          return failure(s, path, "a message arrived but the connection was not closed", "close " + codes_text(codes) + ", or silence with the connection open",
                         "a message, then no close within " + std::to_string(s["or_silence_ms"].get<std::int64_t>()) + " ms");
        }
        if (!in) return failure(s, path, "the connection was not closed in time", "close " + codes_text(codes), "nothing (timeout)");
        if (in->kind == ws::Event::Kind::close) {
          if (!codes || std::find(codes->begin(), codes->end(), in->close_code) != codes->end()) return std::nullopt;
          return failure(s, path, "the connection was closed with the wrong code", "close " + codes_text(codes), describe(*in));
        }
        if (in->kind == ws::Event::Kind::text) {
          auto j = json::parse_strict(in->data);
          if (j && ignored(*j)) continue;
        }
        if (skip) {
          skipped = true;
          continue;
        }
        return failure(s, path, "a message arrived where the close was expected", "close " + codes_text(codes), describe(*in));
      }
    }

    auto pattern = env_.vars.substitute(s.value("message", Json(nullptr)));
    if (!pattern) return harness_error(s, path, pattern.error());
    for (;;) {
      auto in = ch.next(left());
      if (!in) return failure(s, path, "no message arrived in time", show(*pattern), "nothing (timeout after " + std::to_string(wait_for(s).count()) + " ms)");
      if (in->kind != ws::Event::Kind::text) {
        if (skip && in->kind != ws::Event::Kind::close) continue;
        return failure(s, path, in->kind == ws::Event::Kind::close ? "the connection closed instead" : "not a text message",
                       show(*pattern), describe(*in));
      }
      auto j = json::parse_strict(in->data);
      if (!j) {
        if (skip) continue;
        return failure(s, path, "the message is not valid JSON (" + j.error().describe() + ")", show(*pattern), describe(*in));
      }
      if (ignored(*j)) continue;
      if (auto m = match(*pattern, *j)) {
        if (skip) continue;
        return failure(s, path, "the message does not match: " + m->describe(), show(*pattern), show(*j));
      }
      return capture(s, path, *j);
    }
  }

  std::optional<StepFailure> do_http(const Json& s, const std::string& path) {
    auto req = env_.vars.substitute(s["http"]);
    if (!req) return harness_error(s, path, req.error());
    net::Headers headers;
    const Json header_spec = req->value("headers", Json::object());  // items() of a temporary would dangle
    for (const auto& [k, v] : header_spec.items()) headers.emplace(k, v.get<std::string>());
    std::string body;
    if (req->contains("raw_body")) {
      body = (*req)["raw_body"].get<std::string>();
    } else if (req->contains("body")) {
      body = (*req)["body"].dump();
      if (headers.find("content-type") == headers.end() && headers.find("Content-Type") == headers.end()) {
        headers.emplace("Content-Type", "application/json");
      }
    }
    const std::string method = req->value("method", std::string(body.empty() ? "GET" : "POST"));
    auto r = env_.http(method, (*req)["path"].get<std::string>(), headers, body, req->value("as", std::string("http")));
    if (!r) {
      return r.error().kind == net::ClientError::Kind::unreachable ? harness_error(s, path, r.error().describe())
                                                                    : failure(s, path, "the HTTP request failed: " + r.error().describe(),
                                                                              "a response", r.error().describe());
    }
    const Json then = s.value("then", Json::object());
    if (then.contains("status")) {
      const auto codes = wanted_codes(then["status"]);
      if (codes && std::find(codes->begin(), codes->end(), r->status) == codes->end()) {
        auto f = failure(s, path, "wrong HTTP status", "HTTP " + codes_text(codes),
                         "HTTP " + std::to_string(r->status) + (r->body.empty() ? "" : ": " + show_text(r->body)));
        f.request = method + " " + (*req)["path"].get<std::string>();
        f.answer = "HTTP " + std::to_string(r->status);
        return f;
      }
    }
    if (then.contains("headers")) {
      for (const auto& [name, want] : then["headers"].items()) {
        std::string lower = name;
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const auto it = r->headers.find(lower);
        const Json have = it == r->headers.end() ? Json(nullptr) : Json(it->second);
        if (auto m = match_member(want, it == r->headers.end() ? nullptr : &have, "/headers/" + lower)) {
          return failure(s, path, "response header mismatch: " + m->describe(), show(want), have.dump());
        }
      }
    }
    std::optional<Json> parsed;
    if (then.contains("body") || s.contains("capture")) {
      auto b = json::parse_strict(r->body);
      if (!b) return failure(s, path, "the response body is not JSON (" + b.error().describe() + ")",
                             then.contains("body") ? show(then["body"]) : "JSON", show_text(r->body));
      parsed = std::move(*b);
    }
    if (then.contains("body")) {
      auto pattern = env_.vars.substitute(then["body"]);
      if (!pattern) return harness_error(s, path, pattern.error());
      if (auto m = match(*pattern, *parsed)) return failure(s, path, "the response body does not match: " + m->describe(), show(*pattern), show(*parsed));
    }
    if (parsed) return capture(s, path, *parsed);
    return std::nullopt;
  }

  // tls_handshake and plaintext (tls_steps.hpp).
  std::optional<StepFailure> do_tls(const Json& s, const std::string& path, const std::string& action) {
    auto step = env_.vars.substitute(s);
    if (!step) return harness_error(s, path, step.error());
    const auto r = action == "plaintext" ? run_plaintext_step(*step, env_, wait_for(s)) : run_tls_handshake_step(*step, env_, wait_for(s));
    switch (r.kind) {
      case TlsStepResult::Kind::pass: return std::nullopt;
      case TlsStepResult::Kind::error: return harness_error(s, path, r.message);
      case TlsStepResult::Kind::not_applicable: return failure(s, path, r.message, "", "", StepFailure::Kind::not_applicable);
      case TlsStepResult::Kind::fail: break;
    }
    auto f = failure(s, path, r.message, r.expected, r.actual);
    f.request = r.request;
    f.answer = r.answer;
    return f;
  }

  std::optional<StepFailure> do_disconnect(const Json& s, const std::string& path) {
    const std::string name = s["disconnect"].get<std::string>();
    AgentSession* a = agent(name);
    if (a == nullptr || !a->channel) return harness_error(s, path, "agent " + name + " is not connected");
    a->channel->close(static_cast<std::uint16_t>(s.value("code", 1000)), s.value("reason", std::string("bye")));
    // Wait (bounded) for the target to finish the close so later steps see the agent gone.
    const auto until = Clock::now() + wait_for(s);
    while (Clock::now() < until) {
      auto in = a->channel->next(std::chrono::duration_cast<ms>(until - Clock::now()));
      if (!in || in->transport_closed) break;
    }
    return std::nullopt;
  }

  std::optional<StepFailure> do_accept(const Json& s, const std::string& path) {
    const std::string name = s["accept"].get<std::string>();
    AgentSession* a = agent(name);
    if (a == nullptr) return harness_error(s, path, "the case declares no client named " + name);
    if (s.contains("refuse")) {
      auto body = env_.vars.substitute(s.value("body", Json::object()));
      if (!body) return harness_error(s, path, body.error());
      hub_->refuse_next(s["refuse"].get<int>(), body->dump());
      // Wait until the client attempted (and was refused): the hub reports it as an accept error.
      auto refused = hub_->accept(wait_for(s), name, env_.transcript);
      if (refused) return failure(s, path, "the client connected although the upgrade was to be refused", "", "");
      if (refused.error() != "refused") return failure(s, path, "the client did not try to connect", "a connection attempt", refused.error());
      return std::nullopt;
    }
    auto ch = hub_->accept(wait_for(s), name, env_.transcript);
    if (!ch) return failure(s, path, "the client did not connect: " + ch.error(), "a WebSocket connection", ch.error());
    a->channel = ch->channel;
    if (s.contains("query")) {
      // The connection URI's query parameters, one member per name (an array when repeated).
      Json query = Json::object();
      for (const auto& [k, v] : ch->query) {
        if (!query.contains(k)) {
          query[k] = v;
        } else {
          if (!query[k].is_array()) query[k] = Json::array({query[k]});
          query[k].push_back(v);
        }
      }
      auto pattern = env_.vars.substitute(s["query"]);
      if (!pattern) return harness_error(s, path, pattern.error());
      if (auto m = match(*pattern, query))
        return failure(s, path, "the connection URI's query does not match: " + m->describe(), show(*pattern), show(query));
    }
    return std::nullopt;
  }

  std::optional<StepFailure> do_expect_http(const Json& s, const std::string& path) {
    auto pending = hub_->next_http(wait_for(s), env_.transcript);
    if (!pending) return failure(s, path, "the client sent no HTTP request: " + pending.error(), "an HTTP request", pending.error());
    auto respond = [&](int status, const Json& body) {
      pending->respond(net::HttpResponse::json(status, body.dump()));
      env_.transcript.add("hub", "out", "http-response", body.dump(), status);
    };
    const auto& req = pending->request;
    if (s.contains("method") && req.method != s["method"].get<std::string>()) {
      respond(405, Json{{"error", "unexpected method"}});
      return failure(s, path, "wrong HTTP method", s["method"].get<std::string>(), req.method + " " + req.target);
    }
    if (s.contains("path") && req.path != s["path"].get<std::string>()) {
      respond(404, Json{{"error", "unexpected path"}});
      return failure(s, path, "wrong HTTP path", s["path"].get<std::string>(), req.method + " " + req.target);
    }
    if (s.contains("body")) {
      auto pattern = env_.vars.substitute(s["body"]);
      if (!pattern) return harness_error(s, path, pattern.error());
      auto body = json::parse_strict(req.body);
      if (!body) {
        respond(400, Json{{"error", "body is not JSON"}});
        return failure(s, path, "the request body is not JSON", show(*pattern), show_text(req.body));
      }
      if (auto m = match(*pattern, *body)) {
        respond(400, Json{{"error", "unexpected body"}});
        return failure(s, path, "the request body does not match: " + m->describe(), show(*pattern), show(*body));
      }
      if (auto f = capture(s, path, *body)) {
        respond(400, Json{{"error", "unexpected body"}});
        return f;
      }
    }
    auto answer = env_.vars.substitute(s.value("respond", Json{{"status", 200}, {"body", Json::object()}}));
    if (!answer) return harness_error(s, path, answer.error());
    respond(answer->value("status", 200), answer->value("body", Json::object()));
    return std::nullopt;
  }

  std::optional<StepFailure> do_parallel(const Json& s, const std::string& path) {
    const Json& branches = s["parallel"];
    std::vector<std::optional<StepFailure>> results(branches.size());
    std::vector<std::thread> threads;
    for (std::size_t b = 0; b < branches.size(); ++b) {
      threads.emplace_back([&, b] {
        StepRunner branch(kase_, driver_, env_, options_, deadline_, hub_);
        results[b] = branch.run(branches[b], path + ".parallel[" + std::to_string(b) + "]");
      });
    }
    for (auto& t : threads) t.join();
    for (auto& r : results) {
      if (r) return r;
    }
    return std::nullopt;
  }

  const Case& kase_;
  const Driver& driver_;
  CaseEnv& env_;
  const CaseOptions& options_;
  Clock::time_point deadline_;
  ClientHub* hub_;
};

std::string requirement_text(const std::vector<std::string>& ids, const RequirementCatalog& requirements) {
  std::string out;
  for (const auto& id : ids) {
    const Requirement* r = requirements.find(id);
    if (r == nullptr) continue;
    out += "\n  " + id + " (" + r->level + (r->kind == "reading" ? ", reading" : "") + ", " + r->spec + " " + r->section + "): \"" +
           r->text + "\"";
  }
  return out;
}

// How hard a failure counts: the strongest level among the requirements it breaks, where a
// requirement that is our reading of a silent spec counts as a SHOULD unless --strict-readings.
// A case whose level is set explicitly below its requirements' (a SHOULD-level check of a MUST
// requirement) keeps its own level.
struct Blame {
  std::string level;
  bool reading = false;
};

Blame judge(const Case& kase, const std::vector<std::string>& blamed, const RequirementCatalog& requirements, bool strict_readings) {
  int rank = 0;
  bool all_readings = !blamed.empty();
  for (const auto& id : blamed) {
    const Requirement* r = requirements.find(id);
    if (r == nullptr) continue;
    const bool reading = r->kind == "reading";
    all_readings &= reading;
    const int level = level_rank(r->level);
    rank = std::max(rank, reading && !strict_readings ? std::min(level, level_rank("SHOULD")) : level);
  }
  if (rank == 0) rank = level_rank(kase.level);
  if (kase.level != requirements.strongest_level(kase.requirements)) rank = std::min(rank, level_rank(kase.level));
  return {rank >= 3 ? "MUST" : rank == 2 ? "SHOULD" : "MAY", all_readings};
}

}  // namespace

Expected<Json, std::string> apply_edits(Json message, const Json& step, const Vars& vars) {
  try {
    if (auto it = step.find("remove"); it != step.end()) {
      for (const auto& ptr : *it) {
        const Json::json_pointer p(ptr.get<std::string>());
        if (message.contains(p)) {
          Json& parent = message.at(p.parent_pointer());
          if (parent.is_object()) parent.erase(p.back());
          else if (parent.is_array()) parent.erase(static_cast<std::size_t>(std::stoul(p.back())));
        }
      }
    }
    if (auto it = step.find("patch"); it != step.end()) {
      for (const auto& [ptr, value] : it->items()) {
        auto v = vars.substitute(value);
        if (!v) return unexpected(v.error());
        message[Json::json_pointer(ptr)] = *v;
      }
    }
  } catch (const std::exception& ex) {
    return unexpected(std::string("bad remove/patch pointer: ") + ex.what());
  }
  return message;
}

CaseResult run_case(const Case& kase, const RequirementCatalog& requirements, const TargetConfig& given, net::Runtime& runtime,
                    const CaseOptions& options, ClientHub* hub) {
  // The embedded lobby serves TLS cases from its TLS twin (target.hpp, tls_twin).
  const bool tls_case = std::find(kase.features.begin(), kase.features.end(), "tls") != kase.features.end();
  const TargetConfig& target = tls_case && !given.uses_tls() && given.tls_twin ? *given.tls_twin : given;
  CaseResult result;
  result.id = kase.id;
  result.title = kase.title;
  result.protocol = kase.protocol;
  result.suite = kase.suite;
  result.file = kase.file;
  result.role = kase.role;
  result.level = kase.level;
  result.requirements = kase.requirements;
  result.tags = kase.tags;
  result.features = kase.features;
  result.started_at = proto::typed::utc_now();
  const auto started = Clock::now();

  auto not_applicable = [&](std::string cause, std::string reason) {
    result.verdict = Verdict::not_applicable;
    result.na_cause = std::move(cause);
    result.reason = std::move(reason);
    return result;
  };
  if ((kase.role == "agent") != (hub != nullptr)) {
    // Say which side the case tests and the command that runs it, so that a lobby author does
    // not read these N/A as something missing from target.json (tests/peers/TRIAGE.md T-34).
    return hub ? not_applicable("server cases (run them with agentconform run)",
                                "server-under-test case: it tests a " + kase.role + ", not the agent/SDK that connects; run it with agentconform run --protocol " +
                                    kase.protocol + " --target URL")
               : not_applicable("client cases (run them with agentconform serve)",
                                "client-under-test case: it tests an agent/SDK, not a server, and needs nothing in target.json; run it with "
                                "agentconform serve --protocol " + kase.protocol + " --command 'YOUR-AGENT'");
  }
  for (const auto& f : kase.features) {
    if (f == "tls" && !target.claims(f)) {
      return not_applicable("TLS case, but the target is given as plain http:// or ws://",
                            "a TLS case: give the target as https:// or wss:// (with tls.ca_file in target.json) to run it");
    }
    if (!target.claims(f)) {
      return not_applicable("feature " + f + " not claimed in target.json",
                            "the target does not claim feature " + f + " (add it to \"features\" in target.json if it has it)");
    }
  }
  const auto id = proto::parse_protocol(kase.protocol);
  const Driver& driver = driver_for(*id);
  if (hub == nullptr && !target.plays(kase.role)) {
    return not_applicable("role " + kase.role + " not played (target.json roles)",
                          "the target does not play the " + kase.role + " role (target.json \"roles\")");
  }
  if (hub == nullptr) {
    for (const auto& transport : driver.case_transports(kase, target)) {
      if (!target.offers(transport)) {
        return not_applicable("transport " + transport + " not offered (target.json transports)",
                              "the case needs transport " + transport + ", which the target does not offer (target.json \"transports\")");
      }
    }
  }
  Vars vars;
  Transcript transcript;
  const ms step_timeout(static_cast<std::int64_t>(static_cast<double>(options.step_timeout.count()) * options.timeout_scale *
                                                  target.timeout_scale));
  CaseEnv env(runtime, target, kase, vars, transcript, step_timeout, options.seed);
  if (options.id_salt != 0) env.rng.seed(options.seed ^ options.id_salt ^ std::hash<std::string>{}(kase.id));
  env.hub = hub;
  const ms case_timeout = kase.timeout.count() > 0 ? kase.timeout : options.case_timeout;
  const auto deadline = started + ms(static_cast<std::int64_t>(static_cast<double>(case_timeout.count()) * options.timeout_scale *
                                                               target.timeout_scale));
  // ${path.<name>}: every entry point of the target, so a case names the registration path as
  // the target declares it rather than the spec's example.
  for (const auto& [name, value] : target.paths) vars.set("path." + name, value);
  // ${ns}: a token of this case and run, for every identifier a target may key state by (guild,
  // channel, stream, conversation ids), so parallel cases never share one.
  vars.set("ns", env.unique("ns"));
  for (const auto& [name, props] : kase.agents.items()) {
    AgentSession a;
    a.name = name;
    a.props = props;
    a.id = props.value("id", env.unique(name));
    auto& slot = env.agents[name] = std::move(a);
    vars.set(name + ".id", slot.id);
    driver.init_agent(slot, env);
  }

  StepRunner runner(kase, driver, env, options, deadline, hub);
  std::optional<StepFailure> failure;
  try {
    if (options.before_steps) {
      if (auto error = options.before_steps(env)) failure = StepFailure{StepFailure::Kind::error, "", Json(), *error, "", ""};
    }
    if (!failure) failure = runner.run(kase.steps, "");
  } catch (const std::exception& ex) {
    failure = StepFailure{StepFailure::Kind::error, "", Json(), std::string("internal error: ") + ex.what(), "", ""};
  }
  // A failed case: what is already waiting on its connections goes into the transcript before
  // they are dropped. A close the target sent while a step looked elsewhere (an HTTP poll) is
  // often the cause (a capacity close right after the upgrade), and only the transcript shows it.
  if (failure && failure->kind != StepFailure::Kind::not_applicable) {
    for (auto& [name, a] : env.agents) {
      for (int i = 0; a.channel && i < 8; ++i) {
        auto pending = a.channel->next(ms(0));
        if (!pending || pending->kind == ws::Event::Kind::close) break;
      }
    }
  }
  for (auto& [name, a] : env.agents) {
    if (a.channel) a.channel->abort();
  }

  if (!failure) {
    result.verdict = Verdict::pass;
    result.reason = "all " + std::to_string(kase.steps.size()) + " steps passed";
  } else {
    switch (failure->kind) {
      case StepFailure::Kind::fail: {
        result.blamed = failure->checks.empty() ? kase.requirements : failure->checks;
        const Blame b = judge(kase, result.blamed, requirements, options.strict_readings);
        result.level = b.level;
        result.reading = b.reading;
        result.verdict = b.level == "MUST" ? Verdict::fail : Verdict::warn;
        break;
      }
      case StepFailure::Kind::error: result.verdict = Verdict::error; break;
      case StepFailure::Kind::not_applicable:
        result.verdict = Verdict::not_applicable;
        result.na_cause = "steps the target's transport cannot carry";
        break;
    }
    if (!failure->request.empty()) result.root_cause = failure->request + " answered " + failure->answer;
    FailedStep f;
    f.path = failure->path;
    f.index = failure->path.empty() ? 0 : static_cast<std::size_t>(std::stoul(failure->path.substr(0, failure->path.find('.'))));
    f.step = failure->step;
    f.expected = failure->expected;
    f.actual = failure->actual;
    f.message = "step " + failure->path + " (" + action_of(failure->step) + "): " + failure->message;
    if (!failure->expected.empty()) f.message += "\n  expected: " + failure->expected;
    if (!failure->actual.empty()) f.message += "\n  actual:   " + failure->actual;
    if (failure->kind == StepFailure::Kind::fail) f.message += "\n  requirement:" + requirement_text(result.blamed, requirements);
    result.reason = "step " + failure->path + ": " + failure->message;
    transcript.note("verdict " + verdict_name(result.verdict) + ": " + f.message);
    result.failed_step = std::move(f);
  }
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  result.transcript = transcript.to_json(options.transcript_budget);
  return result;
}

}  // namespace ac::engine

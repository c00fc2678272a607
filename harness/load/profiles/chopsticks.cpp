// Chopsticks under load: request/response through the controller. Each lane is a keep-alive HTTP
// connection to the controller's request endpoint (paths.request, the reference's POST
// /chopsticks/request: the spec gives a controller no API, so a third-party controller needs the
// same extension, as `run` does for its RPC cases) sending one request at a time; the controller
// turns it into a `req` to the agent (one of ours, registered with a hello), the agent answers
// with a `resp`, and the controller answers the HTTP request with it. The ledger counts the
// `req`s at the agents; the latency is the whole round trip, from the request's intended send
// time to the HTTP answer.
#include <thread>

#include "harness/json/strict_reader.hpp"
#include "harness/load/profiles/common.hpp"

namespace ac::load {
namespace {

class ChopsticksProfile final : public ProfileBase {
 public:
  explicit ChopsticksProfile(ProfileSettings s) : ProfileBase(std::move(s)) {
    for (std::size_t i = 0; i < agents(); ++i) prefix_.push_back("{\"agentId\":" + json_string(agent_name(i)) + ",\"op\":\"acload\",\"data\":\"");
  }

  std::string agent_name(std::size_t agent) const override { return default_id(agent); }

  Expected<bool, std::string> prepare(net::Runtime&) override {
    if (target().path("request").empty()) {
      return unexpected(std::string("settings: Chopsticks load needs the controller's request endpoint (paths.request)"));
    }
    return true;
  }

  Endpoint endpoint(std::size_t) const override { return {ws_url("ws", ""), {}}; }

  void on_open(std::size_t agent, Sink& sink) override {
    const Json hello = {{"type", "hello"},
                        {"protocolVersion", target().setting("protocol_version", "1.0.0")},
                        {"agentId", agent_name(agent)},
                        {"botUserId", nullptr},
                        {"tag", nullptr},
                        {"ready", true},
                        {"guildIds", Json::array()},
                        {"poolId", "agentconform-load"}};
    sink.send(agent, hello.dump());
  }

  Seen on_frame(std::size_t agent, std::string_view frame, Sink& sink) override {
    auto j = json::parse_strict(frame);
    if (!j || !j->is_object()) return {Seen::Kind::unexpected, "frame that is not a JSON object"};
    const std::string type = j->value("type", std::string());
    if (type == "error") return {Seen::Kind::error, "error: " + j->value("error", std::string()).substr(0, 80)};
    if (type == "req") {  // the settle probe (or any req without a marker): answered, not counted
      sink.send(agent, Json{{"type", "resp"}, {"id", j->value("id", std::string())}, {"ok", true}, {"data", nullptr}}.dump());
      return {};
    }
    return {Seen::Kind::unexpected, "an unexpected '" + type + "' message"};
  }

  std::optional<std::string> waiting() const override { return std::nullopt; }

  // The hello has no acknowledgement: probe each agent through the controller until it routes.
  Expected<bool, std::string> settle(net::Runtime& runtime) override {
    for (std::size_t i = 0; i < agents(); ++i) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int>(10000 * target().timeout_scale));
      for (;;) {
        net::HttpCall call;
        call.method = "POST";
        call.url = http_url("request");
        call.headers.emplace("Content-Type", "application/json");
        call.body = Json{{"agentId", agent_name(i)}, {"op", "acload-probe"}, {"data", nullptr}}.dump();
        call.tls = target().tls;
        auto r = net::http_request(runtime, call);
        if (!r) return unexpected("probing agent " + agent_name(i) + ": " + r.error().describe());
        if (r->status == 200) break;
        if (std::chrono::steady_clock::now() > until) {
          return unexpected("the controller does not route to agent " + agent_name(i) + " (POST " + call.url + " answers HTTP " +
                            std::to_string(r->status) + ": " + r->body.substr(0, 200) + ")");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    return true;
  }

  Endpoint http_endpoint() const override { return {http_url("request"), {{"content-type", "application/json"}}}; }

  void encode(const Lane& lane, std::uint64_t, std::string_view marker, std::string& out) override {
    out += prefix_[lane.to];
    out += marker;
    out += "\"}";
  }
  std::size_t overhead(const Lane& lane) const override { return prefix_[lane.to].size() + 2; }

  void answer(std::size_t agent, const Lane& lane, std::uint64_t seq, std::string_view frame, Sink& sink) override {
    // The req's id, found without parsing the frame: "id":"<uuid>" (the controller's ids are UUIDs).
    std::string id;
    const std::size_t at = frame.find("\"id\":\"");
    if (at != std::string_view::npos) {
      const std::size_t end = frame.find('"', at + 6);
      if (end != std::string_view::npos && end - at - 6 <= 64) id = std::string(frame.substr(at + 6, end - at - 6));
    }
    if (id.empty()) {  // spelled otherwise (whitespace, escapes): parse it
      if (auto j = json::parse_strict(frame); j && j->is_object()) id = j->value("id", std::string());
    }
    char marker[kMarkerBytes];
    write_marker(marker, kReplyTag, run_id(), lane.index, seq, 0);
    std::string out = "{\"type\":\"resp\",\"id\":" + json_string(id) + ",\"ok\":true,\"data\":\"";
    out.append(marker, kMarkerBytes);
    out += "\"}";
    sink.send(agent, std::move(out));
  }

  std::string check(std::size_t agent, const Lane&, std::string_view frame, std::string_view marker) override {
    auto j = json::parse_strict(frame);
    if (!j || !j->is_object()) return "not a JSON object";
    if (j->value("type", std::string()) != "req") return "type is not req";
    if (j->value("op", std::string()) != "acload") return "op is not the requested one";
    if (j->contains("agentId") && (*j)["agentId"] != agent_name(agent)) return "agentId is not the receiving agent";
    if (j->value("data", std::string()) != marker) return "data was changed on the way";
    return "";
  }

  Seen on_response(const Lane&, int status, std::string_view body) override {
    if (status == 200) {
      auto j = json::parse_strict(body);
      if (!j || !j->is_object() || j->value("type", std::string()) != "resp") return {Seen::Kind::unexpected, "a 200 answer that is not the resp"};
      return {Seen::Kind::reply, ""};
    }
    std::string code = "HTTP " + std::to_string(status);
    if (auto j = json::parse_strict(body); j && j->is_object()) {
      const std::string c = str_at(*j, "/error/code");
      if (!c.empty()) code = c;
    }
    return {Seen::Kind::error, code};
  }

 private:
  std::vector<std::string> prefix_;  // per agent: the request body up to the marker
};

}  // namespace

Expected<std::unique_ptr<Profile>, std::string> make_chopsticks_profile(ProfileSettings s) {
  return std::unique_ptr<Profile>(new ChopsticksProfile(std::move(s)));
}

}  // namespace ac::load

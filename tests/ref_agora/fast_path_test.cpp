// The send_chunk fast path (reference/agora/README.md) changes nothing but speed: two relays, one
// with it and one without (protocols.agora.fast_path false), driven in-process with the same
// random frames from the same agents, deliver the same bytes to every agent, error frames
// included. The frames mix the plain shape the fast path takes with every near miss (escapes,
// other members, a member twice, wrong types, unknown streams and recipients, whitespace, broken
// JSON), and the test checks that the fast path did take some of them.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>

#include "reference/core/hub.hpp"

namespace ac::ref {
namespace {

using Json = nlohmann::json;

class NoTimers final : public net::Scheduler {
 public:
  TimerId after(std::chrono::milliseconds, std::function<void()>) override { return ++next_; }
  void cancel(TimerId) override {}

 private:
  TimerId next_ = 0;
};

class Recorder final : public net::Peer {
 public:
  Recorder(std::uint64_t id, net::HttpRequest r) : id_(id), request_(std::move(r)) {}
  std::uint64_t id() const override { return id_; }
  const net::HttpRequest& upgrade_request() const override { return request_; }
  void send_text(std::string frame) override { got.push_back(std::move(frame)); }
  void close(std::uint16_t code, std::string) override { got.push_back("<close " + std::to_string(code) + ">"); }
  std::vector<std::string> got;

 private:
  std::uint64_t id_;
  net::HttpRequest request_;
};

class Relay {
 public:
  explicit Relay(bool fast) {
    config_.protocols["agora"] = {{"fast_path", fast}};
    context_ = std::make_unique<HubContext>(HubContext{config_, faults_, metrics_, scheduler_});
    for (const auto& [id, factory] : hub_factories()) {
      if (id != proto::ProtocolId::agora) continue;
      auto hub = factory(*context_);
      if (!hub) throw std::runtime_error(hub.error());
      hub_ = std::move(*hub);
    }
    RouteTable routes;
    hub_->install(routes);
    for (auto& [path, h] : routes.ws) {
      if (path == "/agora/ws") handler_ = h;
    }
  }
  std::shared_ptr<Recorder> connect(const std::string& id) {
    net::HttpRequest r;
    r.path = "/agora/ws";
    r.query.emplace("agent_id", id);
    auto decision = handler_->on_upgrade(r);
    auto peer = std::make_shared<Recorder>(++next_, r);
    peer->attachment = decision.attachment;
    handler_->on_open(peer);
    peers_[id] = peer;
    return peer;
  }
  void send(const std::string& from, const std::string& frame) { handler_->on_message(peers_.at(from), frame, false); }
  const std::vector<std::string>& got(const std::string& id) { return peers_.at(id)->got; }
  std::uint64_t fast_chunks() const { return hub_->status().value("fast_path_chunks", std::uint64_t{0}); }
  ~Relay() {
    for (auto& [id, p] : peers_) handler_->on_close(p, {1000, ""});
  }

 private:
  LobbyConfig config_;
  FaultSet faults_;
  Metrics metrics_;
  NoTimers scheduler_;
  std::unique_ptr<HubContext> context_;
  std::unique_ptr<Hub> hub_;
  std::shared_ptr<net::WsHandler> handler_;
  std::map<std::string, std::shared_ptr<Recorder>> peers_;
  std::uint64_t next_ = 0;
};

// One frame from agent a: usually a plain send_chunk, otherwise one of its near misses.
std::string random_frame() {
  const std::string to = *rc::gen::element<std::string>("b", "b", "b", "c", "nobody", "");
  const std::string sid = *rc::gen::element<std::string>("s1", "s1", "s2", "s3", "");
  std::string chunk = *rc::gen::container<std::string>(rc::gen::element<char>('a', 'z', ' ', '0', '~', '/', '\x7f'));
  if (*rc::gen::inRange(0, 8) == 0) chunk += *rc::gen::element<std::string>("\\\"", "\\\\", "\\n", "\\u00e9", "\xC3\xA9", "\xE2\x80\xA8");
  std::vector<std::pair<std::string, std::string>> members = {
      {"\"type\"", *rc::gen::element<std::string>("\"send_chunk\"", "\"send_chunk\"", "\"send_chunk\"", "\"send_end\"", "\"send_chunkx\"", "1")},
      {"\"to\"", "\"" + to + "\""},
      {"\"stream_id\"", *rc::gen::inRange(0, 10) == 0 ? std::string("7") : "\"" + sid + "\""},
      {"\"chunk\"", *rc::gen::inRange(0, 12) == 0 ? std::string("null") : "\"" + chunk + "\""}};
  switch (*rc::gen::inRange(0, 14)) {
    case 0: members.push_back({"\"extra\"", "{\"k\":[1,2]}"}); break;
    case 1: members.push_back({"\"from\"", "\"mallory\""}); break;
    case 2: members.push_back({"\"to\"", "\"c\""}); break;  // a member twice
    case 3: members.pop_back(); break;                    // a member missing
    case 4: members[1].first = "\"t\\u006f\""; break;      // an escaped key
    default: break;
  }
  const auto order = *rc::gen::container<std::vector<int>>(members.size(), rc::gen::inRange(0, 1000));
  std::vector<std::size_t> idx(members.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return order[x] < order[y]; });
  const std::string ws = *rc::gen::element<std::string>("", "", " ", "\n\t ");
  std::string out = ws + "{";
  for (std::size_t i = 0; i < idx.size(); ++i) out += (i ? "," + ws : ws) + members[idx[i]].first + ws + ":" + ws + members[idx[i]].second;
  out += ws + "}" + ws;
  switch (*rc::gen::inRange(0, 30)) {
    case 0: out.pop_back(); out.pop_back(); break;  // broken JSON
    case 1: out += "x"; break;                      // trailing data
    default: break;
  }
  return out;
}

RC_GTEST_PROP(AgoraFastPath, DeliversExactlyWhatTheCodecPathDelivers, ()) {
  Relay fast(true), slow(false);
  for (Relay* r : {&fast, &slow}) {
    for (const char* id : {"a", "b", "c"}) r->connect(id);
    r->send("a", R"({"type":"send","to":"b","stream_id":"s1","stream":true})");
    r->send("a", R"({"type":"send","to":"c","stream_id":"s2","stream":true})");
  }
  const auto n = *rc::gen::inRange(1, 60);
  for (int i = 0; i < n; ++i) {
    const std::string frame = random_frame();
    fast.send("a", frame);
    slow.send("a", frame);
  }
  for (const char* id : {"a", "b", "c"}) RC_ASSERT(fast.got(id) == slow.got(id));
  RC_ASSERT(slow.fast_chunks() == 0u);
  RC_TAG(fast.fast_chunks() > 0 ? "fast path taken" : "codec path only");
}

TEST(AgoraFastPath, TakesThePlainShape) {
  Relay fast(true);
  for (const char* id : {"a", "b"}) fast.connect(id);
  fast.send("a", R"({"type":"send","to":"b","stream_id":"s1","stream":true})");
  fast.send("a", R"({"type":"send_chunk","to":"b","stream_id":"s1","chunk":"caf\u00e9"})");  // escaped: codec path
  fast.send("a", "{\"chunk\":\"caf\xC3\xA9\", \"stream_id\":\"s1\",\"to\":\"b\",\"type\":\"send_chunk\"}");
  EXPECT_EQ(fast.fast_chunks(), 1u);
  const auto& got = fast.got("b");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1], got[2]) << "the same chunk by either path";
  EXPECT_EQ(got[2], "{\"chunk\":\"caf\xC3\xA9\",\"from\":\"a\",\"stream_id\":\"s1\",\"type\":\"message_chunk\"}");
}

}  // namespace
}  // namespace ac::ref

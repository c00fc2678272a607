// Relay benchmarks of the reference lobby (issue 3), on loopback, in one process:
//   BM_AgoraSendChunkThroughput/P   P sender->receiver pairs stream send_chunk frames through
//                                   /agora/ws; items/s = message_chunk frames delivered per second
//   BM_AlpDirectMessageThroughput/P the same with ALP DIRECT_MESSAGE through /ws/connect
//   BM_AgoraRelayLatency            one pair paced at 20,000 frames/s; counters p50_us, p99_us,
//                                   max_us = send-to-delivery time of each frame
//   BM_IdleConnectionMemory         5,000 idle Agora connections; counter bytes_per_connection =
//                                   growth of this process's resident set / 5,000 (the client side
//                                   holds only a socket per connection, so this is the lobby's cost
//                                   plus a few bytes)
// The clients are raw sockets with pre-encoded frames (bench/support/raw_ws.hpp) so the figures are
// the lobby's, not the load generator's. A sender stays at most kWindow frames ahead of its
// receiver: the lobby disconnects a consumer whose send queue overflows (by design), and a
// benchmark must measure relaying, not that policy. Figures go in the closing note; nothing here
// is asserted anywhere.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/support/raw_ws.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/net/client.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "reference/lobby/lobby.hpp"

namespace {

using namespace std::chrono_literals;
using ac::bench::RawWs;
using ac::bench::masked_text_frame;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kWindow = 4096;        // frames a sender may be ahead of its receiver
constexpr std::int64_t kBatch = 128;          // frames per write() call
constexpr std::int64_t kPerPair = 200000;     // frames per pair and iteration
constexpr auto kDeadline = 60s;               // a stuck run is reported, never hangs

std::unique_ptr<ac::ref::Lobby> start_lobby(nlohmann::json protocols = nlohmann::json::object()) {
  ac::ref::LobbyConfig config;
  config.threads = 2;
  config.protocols = std::move(protocols);
  auto lobby = ac::ref::Lobby::start(std::move(config));
  if (!lobby) throw std::runtime_error("lobby: " + lobby.error());
  return std::move(*lobby);
}

// One sender->receiver pair: the sender writes `frames` (cycling through `batch_bytes`, a buffer
// of kBatch pre-encoded frames) and the receiver counts payloads containing `marker`.
struct Pair {
  std::unique_ptr<RawWs> sender, receiver;
  std::string prologue, batch_bytes, epilogue;
  std::string marker;
  std::atomic<std::int64_t> delivered{0};
  bool failed = false;
};

// Runs every pair to `per_pair` delivered frames; returns false on deadline or a closed socket.
bool pump(std::vector<std::unique_ptr<Pair>>& pairs, std::int64_t per_pair) {
  std::vector<std::thread> threads;
  const auto deadline = Clock::now() + kDeadline;
  for (auto& pp : pairs) {
    Pair* p = pp.get();
    p->delivered = 0;
    threads.emplace_back([p, per_pair, deadline] {
      while (p->delivered < per_pair && Clock::now() < deadline) {
        const bool open = p->receiver->read_frames([&](std::string_view payload) {
          if (payload.find(p->marker) != std::string_view::npos) p->delivered.fetch_add(1, std::memory_order_relaxed);
        });
        if (!open) {
          p->failed = true;
          return;
        }
      }
      if (p->delivered < per_pair) p->failed = true;
    });
    threads.emplace_back([p, per_pair, deadline] {
      try {
        if (!p->prologue.empty()) p->sender->write_all(p->prologue);
        std::int64_t sent = 0;
        while (sent < per_pair && !p->failed) {
          while (sent - p->delivered.load(std::memory_order_relaxed) > kWindow) {
            if (Clock::now() > deadline || p->failed) return;
            // Sleep, not yield: on two cores a spinning sender steals the lobby's CPU.
            std::this_thread::sleep_for(std::chrono::microseconds(100));
          }
          const std::int64_t n = std::min(kBatch, per_pair - sent);
          const std::size_t frame_bytes = p->batch_bytes.size() / kBatch;
          p->sender->write_all(std::string_view(p->batch_bytes).substr(0, frame_bytes * static_cast<std::size_t>(n)));
          sent += n;
        }
        if (!p->epilogue.empty()) p->sender->write_all(p->epilogue);
      } catch (const std::exception&) {
        p->failed = true;
      }
    });
  }
  for (auto& t : threads) t.join();
  return std::none_of(pairs.begin(), pairs.end(), [](const auto& p) { return p->failed; });
}

// ---- Agora ------------------------------------------------------------------------------------

std::string agora_chunk(const std::string& to, const std::string& text) {
  return R"({"type":"send_chunk","to":")" + to + R"(","stream_id":"s1","chunk":")" + text + "\"}";
}

std::unique_ptr<Pair> agora_pair(std::uint16_t port, int index) {
  auto p = std::make_unique<Pair>();
  const std::string a = "bench-a-" + std::to_string(index), b = "bench-b-" + std::to_string(index);
  p->receiver = std::make_unique<RawWs>(port, "/agora/ws?agent_id=" + b);
  p->sender = std::make_unique<RawWs>(port, "/agora/ws?agent_id=" + a);
  p->marker = "message_chunk";
  p->prologue = masked_text_frame(R"({"type":"send","to":")" + b + R"(","stream_id":"s1","stream":true})");
  for (int i = 0; i < kBatch; ++i) p->batch_bytes += masked_text_frame(agora_chunk(b, "token-0123456789"));
  // The stream stays open across iterations; the end frame is sent when the pair is dropped.
  return p;
}

void BM_AgoraSendChunkThroughput(benchmark::State& state) {
  auto lobby = start_lobby();
  std::vector<std::unique_ptr<Pair>> pairs;
  for (int i = 0; i < state.range(0); ++i) pairs.push_back(agora_pair(lobby->port(), i));
  bool first = true;
  for (auto _ : state) {
    if (!pump(pairs, kPerPair)) {
      state.SkipWithError("a pair failed or missed the deadline");
      break;
    }
    if (first) {  // the stream is open now; later iterations send chunks only
      for (auto& p : pairs) p->prologue.clear();
      first = false;
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0) * kPerPair);
}
BENCHMARK(BM_AgoraSendChunkThroughput)->Arg(1)->Arg(2)->Arg(4)->Iterations(3)->UseRealTime()->Unit(benchmark::kMillisecond);

// ---- ALP --------------------------------------------------------------------------------------

struct AlpAgent {
  std::string id, token;
};

AlpAgent alp_register(ac::net::Runtime& runtime, const ac::ref::Lobby& lobby, const std::string& id) {
  ac::net::HttpCall call;
  call.method = "POST";
  call.url = lobby.http_url() + "/api/v1/register";
  call.headers.emplace("content-type", "application/json");
  call.body = nlohmann::json{{"agent_id", id}, {"agent_type", "bench"}, {"api_key", lobby.config().api_keys.front()}}.dump();
  auto r = ac::net::http_request(runtime, call);
  if (!r || r->status / 100 != 2) throw std::runtime_error("register failed: " + (r ? r->body : r.error().describe()));
  auto body = ac::json::parse_strict(r->body);
  if (!body) throw std::runtime_error("register: body is not JSON");
  return {body->value("agent_id", id), body->value("auth_token", "")};
}

std::unique_ptr<Pair> alp_pair(ac::net::Runtime& runtime, const ac::ref::Lobby& lobby, int index) {
  auto p = std::make_unique<Pair>();
  const AlpAgent a = alp_register(runtime, lobby, "bench-alp-a-" + std::to_string(index));
  const AlpAgent b = alp_register(runtime, lobby, "bench-alp-b-" + std::to_string(index));
  p->receiver = std::make_unique<RawWs>(lobby.port(), "/ws/connect?token=" + b.token + "&agent_id=" + b.id);
  p->sender = std::make_unique<RawWs>(lobby.port(), "/ws/connect?token=" + a.token + "&agent_id=" + a.id);
  p->marker = "DIRECT_MESSAGE";
  const std::string now = ac::proto::typed::utc_now();
  for (int i = 0; i < kBatch; ++i) {
    const nlohmann::json m = {{"message_id", ac::proto::typed::new_uuid_v4()},
                              {"protocol_version", "0.2.0"},
                              {"sender_id", a.id},
                              {"receiver_id", b.id},
                              {"message_type", "DIRECT_MESSAGE"},
                              {"timestamp", now},
                              {"payload", {{"content_type", "text/plain"}, {"content", "token-0123456789"}}}};
    p->batch_bytes += masked_text_frame(m.dump());
  }
  return p;
}

void BM_AlpDirectMessageThroughput(benchmark::State& state) {
  // No rate limit: the benchmark measures routing, not the limiter.
  auto lobby = start_lobby({{"alp", {{"rate_limit_messages", 0}}}});
  ac::net::Runtime runtime(1);
  std::vector<std::unique_ptr<Pair>> pairs;
  for (int i = 0; i < state.range(0); ++i) pairs.push_back(alp_pair(runtime, *lobby, i));
  std::this_thread::sleep_for(300ms);  // sessions open after the 101 was written
  for (auto _ : state) {
    if (!pump(pairs, kPerPair)) {
      state.SkipWithError("a pair failed or missed the deadline");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0) * kPerPair);
}
BENCHMARK(BM_AlpDirectMessageThroughput)->Arg(1)->Arg(2)->Arg(4)->Iterations(3)->UseRealTime()->Unit(benchmark::kMillisecond);

// ---- latency at a fixed rate -------------------------------------------------------------------

void BM_AgoraRelayLatency(benchmark::State& state) {
  constexpr int kRate = 20000;                 // frames per second
  constexpr auto kTick = 250us;                // the sender wakes every tick...
  constexpr int kPerTick = kRate / 4000;       // ...and writes this many frames
  constexpr int kFrames = kRate * 3;           // three seconds per iteration
  auto lobby = start_lobby();
  RawWs receiver(lobby->port(), "/agora/ws?agent_id=lat-b");
  RawWs sender(lobby->port(), "/agora/ws?agent_id=lat-a");
  sender.write_all(masked_text_frame(R"({"type":"send","to":"lat-b","stream_id":"s1","stream":true})"));
  std::vector<double> latencies_us;
  latencies_us.reserve(kFrames);
  for (auto _ : state) {
    latencies_us.clear();
    std::thread reader([&] {
      const auto deadline = Clock::now() + kDeadline;
      while (static_cast<int>(latencies_us.size()) < kFrames && Clock::now() < deadline) {
        if (!receiver.read_frames([&](std::string_view payload) {
              const auto at = payload.find("t=");
              if (at == std::string_view::npos) return;
              const long long sent_ns = std::atoll(std::string(payload.substr(at + 2, 20)).c_str());
              const long long now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
              latencies_us.push_back(static_cast<double>(now_ns - sent_ns) / 1000.0);
            }))
          return;
      }
    });
    auto next = Clock::now();
    for (int sent = 0; sent < kFrames; sent += kPerTick) {
      std::this_thread::sleep_until(next);
      next += kTick;
      std::string batch;
      for (int i = 0; i < kPerTick; ++i) {
        const long long ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
        batch += masked_text_frame(agora_chunk("lat-b", "t=" + std::to_string(ns)));
      }
      sender.write_all(batch);
    }
    reader.join();
  }
  if (static_cast<int>(latencies_us.size()) < kFrames) {
    state.SkipWithError("frames lost or deadline missed");
    return;
  }
  std::sort(latencies_us.begin(), latencies_us.end());
  auto at = [&](double q) { return latencies_us[static_cast<std::size_t>(q * (latencies_us.size() - 1))]; };
  state.counters["p50_us"] = at(0.50);
  state.counters["p99_us"] = at(0.99);
  state.counters["max_us"] = latencies_us.back();
  state.SetItemsProcessed(state.iterations() * kFrames);
}
BENCHMARK(BM_AgoraRelayLatency)->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);

// ---- memory per idle connection ----------------------------------------------------------------

void BM_IdleConnectionMemory(benchmark::State& state) {
  const int connections = static_cast<int>(state.range(0));
  if (ac::bench::raise_fd_limit() < static_cast<std::size_t>(2 * connections + 100)) {
    state.SkipWithError("RLIMIT_NOFILE too low for the connection count");
    return;
  }
  auto lobby = start_lobby();
  { RawWs warm(lobby->port(), "/agora/ws?agent_id=warm-up"); }  // first-use allocations
  std::this_thread::sleep_for(200ms);
  std::vector<std::unique_ptr<RawWs>> idle;
  idle.reserve(static_cast<std::size_t>(connections));
  double per_connection = 0;
  for (auto _ : state) {
    const std::size_t before = ac::bench::resident_bytes();
    for (int i = 0; i < connections; ++i) {
      idle.push_back(std::make_unique<RawWs>(lobby->port(), "/agora/ws?agent_id=idle-" + std::to_string(i)));
      idle.back()->release_buffer();
    }
    std::this_thread::sleep_for(500ms);  // let every session settle
    const std::size_t after = ac::bench::resident_bytes();
    per_connection = static_cast<double>(after - before) / connections;
  }
  state.counters["bytes_per_connection"] = per_connection;
  state.counters["connections"] = connections;
}
BENCHMARK(BM_IdleConnectionMemory)->Arg(5000)->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

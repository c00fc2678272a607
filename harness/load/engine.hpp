// The load engine: the connections of a run and its hot path, on Asio (engine.cpp is the only
// file of harness/load that includes Asio or Beast, which are slow to compile).
//
// Sending. Open loop (a rate): every lane has a schedule, message k intended at
// start + k / rate; whenever the engine runs it writes every message whose time has come, each
// carrying its intended time, so a target that stalls the sender is charged the whole wait (no
// coordinated omission, as wrk2 measures). Messages are generated when the connection can take
// them, so a backlog costs no memory. Closed loop (--max): each lane keeps `window` messages in
// flight and sends the next as deliveries come back. All frames ready for a connection leave in
// one write.
//
// Receiving. A frame carrying a data marker is accounted without parsing (marker.hpp): the lane's
// ledger (lost, duplicated, reordered), misdelivery (the lane's receiver is another agent), the
// latency from the intended send time, and a full check by the profile for a sample. Other frames
// go to the profile (handshakes, answers, errors by code).
//
// Threads: `threads` I/O threads, each with its own io_context and a share of the connections;
// lane state is written by one thread (the sender's or the receiver's) and read by the snapshot
// thread through atomics.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/load/histogram.hpp"
#include "harness/load/ledger.hpp"
#include "harness/load/profile.hpp"

namespace ac::load {

struct EngineOptions {
  std::size_t threads = 1;
  bool closed_loop = false;
  double rate_per_lane = 0;        // open loop: messages per second of each lane
  std::size_t window = 64;         // closed loop: messages in flight per lane
  std::size_t message_size = 256;  // bytes of each message (frame text or HTTP body)
  std::string run_id;
  std::chrono::milliseconds connect_timeout{10000};
  net::TlsClientOptions tls;
  std::size_t max_message_bytes = 16 * 1024 * 1024;  // largest frame accepted from the target
  std::size_t check_every = 64;                      // full check of one delivery in this many
  std::size_t max_pending_bytes = 4 * 1024 * 1024;   // per connection, not yet written
};

struct LaneState {
  std::atomic<std::uint64_t> sent{0};
  Ledger ledger;
  std::atomic<std::uint64_t> misdelivered{0};  // arrived at another agent than the lane's receiver
  std::atomic<std::uint64_t> invalid{0};       // arrived, but not as sent (the profile's check)
  std::atomic<std::uint64_t> answered{0};      // HTTP lanes: answers to requests
};

// Something that went wrong, kept with a bounded number of examples.
struct Problems {
  static constexpr std::size_t kExamples = 20;
  std::mutex mutex;
  std::map<std::string, std::uint64_t> errors;  // by the protocol's code
  std::uint64_t unexpected = 0;
  std::vector<std::string> unexpected_examples;
  std::uint64_t connection_failures = 0;
  std::vector<std::string> failure_examples;
  std::vector<std::string> invalid_examples;

  void error(const std::string& code);
  void unexpected_frame(const std::string& what);
  void connection_failure(const std::string& what);
  void invalid(const std::string& what);
};

struct Counters {
  explicit Counters(std::size_t lane_count) : lanes(lane_count) {}
  std::vector<LaneState> lanes;
  std::atomic<std::uint64_t> replies{0};
  Problems problems;
  // One histogram per I/O thread (recording is per thread; a snapshot adds them up).
  std::vector<std::unique_ptr<Histogram>> latency;

  Snapshot latency_snapshot() const;
};

class Engine {
 public:
  Engine(EngineOptions options, Profile& profile, const Topology& topology, Counters& counters);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Opens every agent's WebSocket (in agent order) and every HTTP lane, then lets the profile
  // send its first frames. An error names the connection and why (exit 3 for the CLI).
  Expected<bool, std::string> connect();
  // Waits until the profile reports every agent ready (calling its tick), at most `timeout`.
  Expected<bool, std::string> await_ready(std::chrono::milliseconds timeout);
  // Starts the traffic of `message_size`-byte messages; intended send times count from now.
  void start(std::size_t message_size);
  // No new messages from now on (messages already due are not sent).
  void stop_sending();
  // Messages sent and not (yet) delivered, over every lane; HTTP lanes: requests not answered.
  std::uint64_t in_flight() const;
  // Messages that were due (open loop) but not sent when stop_sending() was called.
  std::uint64_t unsent() const;
  // Sends what ends the traffic (profile.on_finish), closes every connection, stops the threads.
  void finish(std::chrono::milliseconds grace);
  std::chrono::steady_clock::time_point epoch() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ac::load

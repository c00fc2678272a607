// Runs one session against a target over the harness's own clients (harness/net) and judges
// it: the profile's protocol and isolation oracles on what came back, then the liveness probe
// on fresh connections. Hangs show as unanswered pings and probe timeouts; crashes as refused
// connections (the fuzzer, which may own the target process, tells the two apart).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/fuzz/profile.hpp"

namespace ac::fuzz {

struct ExecOptions {
  std::chrono::milliseconds answer_deadline{1500};  // after the barrier, for what is still expected
  bool probe = true;                                // run the liveness probe after the session:
  int probe_every = 4;                              // ... after every Nth, and after any session that tripped or
                                                    // had a connection cut (the barrier checks the session's own
                                                    // connections every time)
  int health_every = 16;                            // ... and the health endpoint every N sessions
  bool record_transcript = false;                   // keep the wire transcript (findings)
  bool settle = true;  // wait (bounded) for each connection's close handshake before run() returns,
                       // so the next run meets a target that no longer holds this run's agents:
                       // a reproducer must trip on its own. A campaign's generating runs skip the
                       // wait (their close frames still leave at once): parallel sessions share the
                       // target anyway, and the oracles allow for other live agents.
  std::size_t transcript_entries = 400;
  std::size_t transcript_entry_bytes = 4096;
};

class Executor {
 public:
  Executor(const TargetView& target, Protocol protocol, ExecOptions options = {});
  // Executes the steps, then checks the oracles. nullopt: nothing tripped.
  std::optional<Trip> run(const std::vector<Step>& steps);
  // The liveness probe alone.
  std::optional<Trip> probe();

  std::uint64_t frames_sent() const { return frames_sent_; }
  const Json& transcript() const { return transcript_; }
  ExecOptions& options() { return options_; }

 private:
  void note(const std::string& channel, const char* direction, const char* kind, const std::string& data,
            std::optional<long long> code = std::nullopt);
  std::string substitute(Exec& exec, const std::string& text);
  void do_connect(Exec& exec, const Step& step, std::optional<Trip>& trip);
  void do_http(Exec& exec, const Step& step, std::optional<Trip>& trip);
  void do_send(Exec& exec, ConnRecord& c, const Step& step);
  void do_post(Exec& exec, ConnRecord& c, const Step& step, std::optional<Trip>& trip);
  std::optional<Trip> went_down(const Exec& exec, bool& alone) const;
  std::optional<Trip> do_await(Exec& exec, const Step& step);
  void record(ConnRecord& c, net::WsEvent e);
  void drain(Exec& exec);
  void await_transport_end(ConnRecord& c);
  void end_connections(Exec& exec);
  // Pings every open connection and reads up to its pong, `rounds` times (stopping early when
  // `done` says so); a live connection that does not answer within the probe timeout is a hang.
  // `done` is asked after every frame received too: the barrier ends as soon as it says so.
  // `first`: the connection pinged first in each round.
  std::optional<Trip> barrier(Exec& exec, int rounds, const std::function<bool()>& done, const ConnRecord* except = nullptr,
                              const ConnRecord* first = nullptr);
  // One ping on `c`, read up to its pong (recording what comes before it) until `until`; no pong
  // on a connection still open: a hang. `finished`: `done` said so before the pong came.
  std::optional<Trip> ping_round_trip(ConnRecord& c, std::chrono::steady_clock::time_point until, const std::function<bool()>& done,
                                      bool& finished);
  std::optional<Trip> collect(Exec& exec);

  // This executor's own I/O, run by the thread that runs the sessions (one fuzz job): see
  // net::Runtime::CallerDriven. target_ is the caller's view with this runtime in it.
  net::Runtime runtime_;
  TargetView target_;
  const Profile& profile_;
  ExecOptions options_;
  std::string salt_;
  std::uint64_t run_counter_ = 0;
  std::uint64_t probe_counter_ = 0;
  std::uint64_t pings_ = 0;  // barrier pings sent (their payloads)
  std::uint64_t frames_sent_ = 0;
  Json transcript_ = Json::array();
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace ac::fuzz

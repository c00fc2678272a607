// Shared by the fuzzer's tests: the embedded lobby as a child process (the `agentconform` binary
// the tests depend on), and a scratch directory per test.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/fuzz/fuzz.hpp"
#include "harness/fuzz/target.hpp"

namespace ac::fuzz::test {

inline std::filesystem::path scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("ac-fuzz-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A TCP port on 127.0.0.1 that was free a moment ago (for a target the test starts itself).
inline std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  std::uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

// A reproducer written by a test, in the format `fuzz` writes (its steps are also the original ones).
inline nlohmann::json handwritten_reproducer(const std::string& protocol, const std::string& oracle, const std::string& signature,
                                             const nlohmann::json& steps) {
  return nlohmann::json{{"format", "agentconform-fuzz-reproducer/1"},
                        {"protocol", protocol},
                        {"oracle", oracle},
                        {"signature", signature},
                        {"detail", "written by the test"},
                        {"placeholders", "${a} ${b} ${c} stand for agent ids made unique per execution"},
                        {"seed", 1},
                        {"iteration", 1},
                        {"mutations", nlohmann::json::array({"written by the test"})},
                        {"steps", steps},
                        {"original_steps", steps},
                        {"target", {{"kind", "url"}, {"url", "ws://127.0.0.1:1/"}}}};
}

// `fuzz --replay FILE --times N` against an independent Python peer (tests/peers/<protocol>/peer.py
// PORT --quiet PEER_ARGS) that the replay starts itself (--target-command), at ws://127.0.0.1:PORT
// + ws_path; `replay_args` are more fuzz arguments (--config ...). The exit code; the output in `log`.
inline int replay_against_peer(const std::filesystem::path& dir, const std::filesystem::path& file, const std::string& protocol,
                               const std::string& ws_path, const std::string& peer_args, int times, const std::string& replay_args,
                               std::string& log) {
  const std::uint16_t port = free_port();
  const auto script = std::filesystem::path(AC_SOURCE_DIR) / "tests/peers" / protocol / "peer.py";
  const std::string peer = "exec /usr/bin/python3 -B " + script.string() + " " + std::to_string(port) + " --quiet " + peer_args;
  const auto out = dir / ("replay-" + std::to_string(port) + ".log");
  const std::string cmd = std::string(AC_CLI) + " fuzz --replay " + file.string() + " --times " + std::to_string(times) + " --protocol " +
                          protocol + " --target ws://127.0.0.1:" + std::to_string(port) + ws_path + " " + replay_args +
                          " --target-command '" + peer + "' --out " + (dir / "out").string() + " > " + out.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream in(out);
  log.assign(std::istreambuf_iterator<char>(in), {});
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The reference lobby in a child process, with the fuzzing configuration and these faults.
inline FuzzTarget lobby(Protocol p, const std::vector<std::string>& faults, const std::filesystem::path& dir, int probe_ms = 3000) {
  TargetRequest r;
  r.protocol = p;
  r.faults = faults;
  r.executable = AC_CLI;
  r.work_dir = dir / "lobby";
  r.probe_timeout = std::chrono::milliseconds(probe_ms);
  auto t = open_target(r);
  EXPECT_TRUE(t) << (t ? "" : t.error().message);
  if (!t) throw std::runtime_error("no lobby");
  return std::move(*t);
}

inline FuzzOptions options_for(Protocol p, FuzzTarget& t, std::uint64_t seed, std::uint64_t iterations, const std::filesystem::path& out) {
  FuzzOptions o;
  o.protocol = p;
  o.target = t.view;
  o.monitor = t.monitor;
  o.scope = Scope::of(t.view.config);
  o.target_description = t.description;
  o.seed = seed;
  o.iterations = iterations;
  o.jobs = 2;
  o.out_dir = out;
  return o;
}

}  // namespace ac::fuzz::test

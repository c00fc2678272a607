// Shared by the fuzzer's tests: the embedded lobby as a child process (the `agentconform` binary
// the tests depend on), and a scratch directory per test.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

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

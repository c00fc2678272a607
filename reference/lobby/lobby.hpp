// The reference lobby: every protocol hub behind one network server, plus GET /healthz and
// GET /metrics. Started in-process by tests and by the harness (the embedded default target),
// or standalone by `agentconform lobby`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "harness/util/expected.hpp"
#include "reference/core/config.hpp"
#include "reference/core/metrics.hpp"

namespace ac::ref {

class Lobby {
 public:
  // Binds (port 0 = ephemeral), starts the hubs and the server threads.
  static Expected<std::unique_ptr<Lobby>, std::string> start(LobbyConfig config);
  ~Lobby();
  Lobby(const Lobby&) = delete;
  Lobby& operator=(const Lobby&) = delete;

  // Closes every WebSocket with 1001 and stops. Idempotent.
  void stop();
  // Blocks until stop() completed (from a signal handler thread, for instance).
  void wait();

  std::uint16_t port() const;
  bool tls() const;
  std::string http_url() const;  // "http://127.0.0.1:PORT" (https when TLS is configured)
  std::string ws_url() const;    // "ws://127.0.0.1:PORT"
  const LobbyConfig& config() const;
  Metrics& metrics();

  struct Impl;

 private:
  explicit Lobby(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ac::ref

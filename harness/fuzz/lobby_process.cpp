// The reference lobby as a child process (see lobby_process.hpp).
#include "harness/fuzz/lobby_process.hpp"

#include <fstream>
#include <thread>

namespace ac::fuzz {
namespace {

using namespace std::chrono_literals;

}  // namespace

nlohmann::json config_document(const ref::LobbyConfig& c) {
  nlohmann::json doc{{"lobby_id", c.lobby_id},
                     {"api_keys", c.api_keys},
                     {"admin_token", c.admin_token},
                     {"timeout_scale", c.timeout_scale},
                     {"threads", c.threads},
                     {"max_connections", c.max_connections},
                     {"max_message_bytes", c.max_message_bytes},
                     {"max_send_queue_bytes", c.max_send_queue_bytes},
                     {"handshake_timeout_ms", c.handshake_timeout.count()},
                     {"ws_idle_timeout_ms", c.ws_idle_timeout.count()},
                     {"http_idle_timeout_ms", c.http_idle_timeout.count()},
                     {"faults", c.faults},
                     {"protocols", c.protocols}};
  return doc;
}

Expected<std::unique_ptr<LobbyProcess>, std::string> LobbyProcess::start(Options options) {
  std::error_code ec;
  std::filesystem::create_directories(options.work_dir, ec);
  if (ec) return unexpected("cannot create " + options.work_dir.string() + ": " + ec.message());
  const auto config_file = options.work_dir / "lobby-config.json";
  {
    std::ofstream out(config_file, std::ios::binary | std::ios::trunc);
    out << config_document(options.config).dump(2);
    if (!out) return unexpected("cannot write " + config_file.string());
  }
  process::Monitor::Options m;
  m.argv = {options.executable.string(), "lobby", "--listen", "127.0.0.1:0", "--config", config_file.string()};
  m.work_dir = options.work_dir;
  m.name = "lobby";
  auto monitor = process::Monitor::start(std::move(m));
  if (!monitor) return unexpected(monitor.error());
  std::unique_ptr<LobbyProcess> p(new LobbyProcess());
  p->monitor_ = std::move(*monitor);
  if (auto r = p->await_listening(); !r) {
    p->stop();
    return unexpected(r.error());
  }
  p->monitor_->set_argv({options.executable.string(), "lobby", "--listen", "127.0.0.1:" + std::to_string(p->port_), "--config",
                         config_file.string()});
  return p;
}

// Waits for "... listening on http://127.0.0.1:PORT" (an ASan build starts in a second or two).
Expected<bool, std::string> LobbyProcess::await_listening() {
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < until) {
    const std::string log = monitor_->output();
    const auto at = log.find("listening on http://127.0.0.1:");
    const auto eol = at == std::string::npos ? std::string::npos : log.find('\n', at);
    if (eol != std::string::npos) {
      try {
        port_ = static_cast<std::uint16_t>(std::stoi(log.substr(at + 30, eol - at - 30)));
      } catch (const std::exception&) {
        return unexpected("cannot read the lobby's port from: " + log.substr(at, eol - at));
      }
      return true;
    }
    if (!monitor_->alive()) return unexpected("the lobby " + monitor_->exit_description() + ": " + monitor_->output_tail(2000));
    std::this_thread::sleep_for(20ms);
  }
  return unexpected("the lobby did not start within 30 s: " + monitor_->output_tail(2000));
}

Expected<bool, std::string> LobbyProcess::restart() {
  Expected<bool, std::string> r = unexpected(std::string("not started"));
  for (int attempt = 0; attempt < 20; ++attempt) {
    r = monitor_->restart();
    if (r) r = await_listening();
    if (r) return r;
    std::this_thread::sleep_for(100ms);  // the port may still be held by the instance just killed
  }
  return r;
}

}  // namespace ac::fuzz

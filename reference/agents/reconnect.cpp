// The shared connection loop of the reference agents (reconnect.hpp).
#include "reference/agents/reconnect.hpp"

#include <ostream>
#include <thread>

#include "harness/json/strict_reader.hpp"
#include "harness/net/client.hpp"

namespace ac::ref {

void pause_unless_stopped(std::chrono::milliseconds d, const std::atomic<bool>& stop) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (!stop && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

void run_reconnecting(int max_connections, std::chrono::milliseconds delay, const std::atomic<bool>& stop,
                      const std::function<Attempt()>& attempt) {
  int connections = 0;
  while (!stop && (max_connections < 0 || connections < max_connections)) {
    ++connections;
    switch (attempt()) {
      case Attempt::failed:
        pause_unless_stopped(delay, stop);
        break;
      case Attempt::closed:
        if (max_connections < 0 || connections < max_connections) pause_unless_stopped(delay, stop);
        break;
      case Attempt::stopped:
        return;
    }
  }
}

std::shared_ptr<net::WsClient> connect_or_log(net::Runtime& runtime, const std::string& url, std::ostream& log) {
  auto client = net::WsClient::connect(runtime, url, {});
  if (client) return *client;
  log << "cannot connect to " << url << ": " << client.error().describe() << "\n";
  return nullptr;
}

Attempt serve_session(net::WsClient& client, const SessionLoop& s, const std::atomic<bool>& stop, std::ostream& log) {
  bool open = true;
  while (open && !stop) {
    if (auto e = client.next(s.wait())) {
      if (e->kind == ws::Event::Kind::close) {
        log << "connection closed: " << e->close_code << " " << e->close_reason << "\n";
        open = false;
      } else if (e->kind == ws::Event::Kind::text) {
        try {
          s.on_text(e->data);
        } catch (const std::exception& ex) {  // defence in depth: a frame never ends the agent
          log << "ignored a " << s.frame_source << " frame: " << ex.what() << "\n";
        }
      }
    }
    if (open && s.tick) s.tick();
  }
  if (!stop) return Attempt::closed;
  if (s.farewell) s.farewell();
  else client.close(1000, "agent shutting down");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return Attempt::stopped;
}

std::function<void(const std::string&)> json_objects_to(std::function<void(const nlohmann::json&)> handle) {
  return [handle = std::move(handle)](const std::string& text) {
    if (auto m = json::parse_strict(text); m && m->is_object()) handle(*m);
  };
}

}  // namespace ac::ref

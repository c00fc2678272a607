// The connection life every reference agent shares: connect, serve the session until the hub
// closes it or the agent is stopped, pause, connect again while the connection budget lasts.
// Each agent only says how it connects and how its session reacts to frames and time; the loop,
// the shutdown and the "a frame never ends the agent" rule live here once.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace ac::net {
class Runtime;
class WsClient;
}  // namespace ac::net

namespace ac::ref {

// How one connection attempt ended.
enum class Attempt {
  failed,   // no session (the hub could not be reached or refused): pause, then try again
  closed,   // a session ran and its connection closed: pause while the budget lasts, then try again
  stopped,  // `stop` ended the session: the agent ends
};

// Sleeps `d`, in short steps so that `stop` ends the pause early.
void pause_unless_stopped(std::chrono::milliseconds d, const std::atomic<bool>& stop);

// Calls `attempt` until it returns stopped, `stop` is set, or `max_connections` attempts are spent
// (-1: no limit), pausing `delay` after a failed attempt and between sessions.
void run_reconnecting(int max_connections, std::chrono::milliseconds delay, const std::atomic<bool>& stop,
                      const std::function<Attempt()>& attempt);

// Connects to `url` as a WebSocket client, or says why not on `log` and returns null.
std::shared_ptr<net::WsClient> connect_or_log(net::Runtime& runtime, const std::string& url, std::ostream& log);

// How one connected session reacts.
struct SessionLoop {
  std::string frame_source;                           // names the sender in "ignored a <source> frame: ..."
  std::function<void(const std::string&)> on_text;     // a text frame; what it throws is logged and ignored
  std::function<std::chrono::milliseconds()> wait;     // how long to wait for the next event
  std::function<void()> tick;                          // optional: after each wait while the connection is open
  std::function<void()> farewell;                      // optional, on stop; default: close 1000 "agent shutting down"
};

// Serves `client` until it closes (closed) or `stop` is set (stopped, after the farewell and a
// short grace for it to leave).
Attempt serve_session(net::WsClient& client, const SessionLoop& s, const std::atomic<bool>& stop, std::ostream& log);

// A text handler that passes on the frames that are JSON objects and drops the others.
std::function<void(const std::string&)> json_objects_to(std::function<void(const nlohmann::json&)> handle);

}  // namespace ac::ref

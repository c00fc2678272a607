// A mock agent's connection to the target, whatever carries it: a WebSocket (ws/wss), a child
// process speaking JSON Lines on stdin/stdout (exec:), a shared directory (AgentProtocol file
// exchange), or HTTP POSTs. The case runner sees only this interface.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "harness/websocket/frame.hpp"

namespace ac::engine {

struct Incoming {
  ws::Event::Kind kind = ws::Event::Kind::text;
  std::string data;
  std::uint16_t close_code = 0;
  std::string close_reason;
  bool invalid_utf8 = false;
  bool transport_closed = false;
};

class Channel {
 public:
  virtual ~Channel() = default;
  virtual std::string transport() const = 0;  // "ws", "exec", "dir", "http"
  virtual void send_text(std::string_view text) = 0;
  // Binary messages and hand-made frames exist only on WebSocket; other transports return false.
  virtual bool send_binary(std::string_view bytes) { (void)bytes; return false; }
  virtual bool send_frame(const ws::FrameSpec& frame) { (void)frame; return false; }
  virtual std::optional<Incoming> next(std::chrono::milliseconds timeout) = 0;
  virtual void close(std::uint16_t code, std::string_view reason) = 0;
  virtual void abort() = 0;
  virtual bool is_open() const = 0;
};

}  // namespace ac::engine

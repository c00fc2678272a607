// The server side of RFC 6455 framing, without Beast or Asio: what a WebSocket session of the
// networking core reads from a client and writes to it. Kept apart from the session so it can be
// tested byte by byte (tests/net/ws_wire_test.cpp) and so the session stays about I/O.
//
// Why not Beast's websocket::stream: it writes one message per async_write (one system call per
// relayed frame) and holds a read buffer per connection for as long as the connection lives.
// The session built on this file gathers every frame queued for a connection into one write and
// reads idle connections without a buffer of their own (docs/performance.md).
//
// ClientReader consumes client frames in place: it unmasks payloads inside the caller's buffer
// and hands complete messages to the caller as views into it, so a message that arrives in one
// read is never copied. Only a fragmented message is assembled in a buffer of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "harness/websocket/frame.hpp"

namespace ac::net::wire {

namespace opcode = ::ac::ws::opcode;  // RFC 6455 §5.2, one definition for both sides

// Appends one unmasked server frame (FIN set) carrying `payload` to `out`.
void append_frame(std::string& out, std::uint8_t opcode, std::string_view payload);
// Bytes of the frame header append_frame writes for a payload of `n` bytes.
inline std::size_t header_size(std::size_t n) { return n < 126 ? 2 : n <= 0xFFFF ? 4 : 10; }
// A close frame payload: the code (network order) and the reason cut to fit 125 bytes on a
// UTF-8 boundary (RFC 6455 §5.5: control frames carry at most 125 bytes).
std::string close_payload(std::uint16_t code, std::string_view reason);
// RFC 6455 §7.4: may this code appear in a close frame a peer sends?
bool valid_close_code(std::uint16_t code);
// XORs `n` bytes with the 4-byte masking key, starting at key position `phase`.
void unmask(char* data, std::size_t n, const std::uint8_t key[4], std::size_t phase = 0);

// What ClientReader reports, in the order the frames arrived.
struct Event {
  enum class Kind { text, binary, ping, pong, close, violation };
  Kind kind = Kind::text;
  std::string_view data;        // message, ping/pong payload, or close reason (valid until the callback returns)
  std::uint16_t close_code = 0; // close: the peer's code (1005 when it sent none); violation: the code to close with
  const char* what = "";        // violation: why (a constant string)
};

class ClientReader {
 public:
  explicit ClientReader(std::size_t max_message) : max_message_(max_message) {}

  // Consumes the complete frames at the start of [data, data + n), unmasking them in place and
  // calling on_event for each message and control frame. Returns the bytes consumed: the rest
  // (an incomplete frame) must be offered again, with what follows, on the next call. After a
  // violation nothing more is consumed (the connection is failed); so is after a close frame.
  template <class OnEvent>
  std::size_t consume(char* data, std::size_t n, OnEvent&& on_event);

  bool failed() const { return failed_; }
  // Bytes of a fragmented message being assembled (memory a session holds for it).
  std::size_t assembling() const { return partial_.capacity(); }
  // A frame whose header announced more than the limit is refused from its header, before its
  // payload arrives: how many bytes the caller must buffer at most for one frame.
  std::size_t max_frame_bytes() const { return max_message_ + 14; }

 private:
  enum class Step { need_more, frame, stop };
  struct Header {
    bool fin = false;
    std::uint8_t opcode = 0;
    std::uint64_t length = 0;
    std::size_t size = 0;  // header bytes
    std::uint8_t key[4] = {0, 0, 0, 0};
  };
  Step parse_header(const unsigned char* p, std::size_t n, Header& h, Event& violation);
  bool valid_text(std::string_view s) const;

  std::size_t max_message_;
  bool failed_ = false;
  bool closed_ = false;
  bool in_message_ = false;
  std::uint8_t message_opcode_ = 0;
  std::string partial_;  // fragments of the message being assembled
};

// ---- implementation of the template -------------------------------------------------------

template <class OnEvent>
std::size_t ClientReader::consume(char* data, std::size_t n, OnEvent&& on_event) {
  std::size_t used = 0;
  while (!failed_ && !closed_ && used < n) {
    Header h;
    Event violation;
    const Step step = parse_header(reinterpret_cast<const unsigned char*>(data + used), n - used, h, violation);
    if (step == Step::need_more) break;
    if (step == Step::stop) {
      failed_ = true;
      in_message_ = false;
      std::string().swap(partial_);
      on_event(violation);
      break;
    }
    if (n - used - h.size < h.length) break;  // the payload is not all here yet
    char* payload = data + used + h.size;
    const auto length = static_cast<std::size_t>(h.length);
    unmask(payload, length, h.key);
    used += h.size + length;
    const std::string_view body(payload, length);
    auto fail = [&](std::uint16_t code, const char* what) {
      failed_ = true;
      in_message_ = false;
      std::string().swap(partial_);
      Event e;
      e.kind = Event::Kind::violation;
      e.close_code = code;
      e.what = what;
      on_event(e);
    };
    if (h.opcode >= opcode::close) {
      Event e;
      if (h.opcode == opcode::ping || h.opcode == opcode::pong) {
        e.kind = h.opcode == opcode::ping ? Event::Kind::ping : Event::Kind::pong;
        e.data = body;
        on_event(e);
        continue;
      }
      // close
      e.kind = Event::Kind::close;
      if (length == 0) {
        e.close_code = 1005;
      } else if (length == 1) {
        fail(1002, "close frame with a one-byte payload (RFC 6455 §5.5.1)");
        break;
      } else {
        e.close_code = static_cast<std::uint16_t>((static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1]));
        if (!valid_close_code(e.close_code)) {
          fail(1002, "invalid close code (RFC 6455 §7.4)");
          break;
        }
        e.data = body.substr(2);
        if (!valid_text(e.data)) {
          fail(1007, "invalid UTF-8 in a close reason");
          break;
        }
      }
      closed_ = true;
      on_event(e);
      break;
    }
    if (h.opcode == opcode::continuation) {
      if (!in_message_) {
        fail(1002, "continuation frame without a message to continue (RFC 6455 §5.4)");
        break;
      }
    } else if (in_message_) {
      fail(1002, "new data frame while a fragmented message is open (RFC 6455 §5.4)");
      break;
    }
    if (h.fin && !in_message_) {  // the common case: a whole message in one frame, not copied
      if (h.opcode == opcode::text && !valid_text(body)) {
        fail(1007, "invalid UTF-8 in a text message");
        break;
      }
      Event e;
      e.kind = h.opcode == opcode::text ? Event::Kind::text : Event::Kind::binary;
      e.data = body;
      on_event(e);
      continue;
    }
    if (!in_message_) {
      in_message_ = true;
      message_opcode_ = h.opcode;
      partial_.clear();
    }
    if (partial_.size() + length > max_message_) {
      fail(1009, "message too big");
      break;
    }
    partial_.append(body);
    if (!h.fin) continue;
    in_message_ = false;
    if (message_opcode_ == opcode::text && !valid_text(partial_)) {
      fail(1007, "invalid UTF-8 in a text message");
      break;
    }
    Event e;
    e.kind = message_opcode_ == opcode::text ? Event::Kind::text : Event::Kind::binary;
    e.data = partial_;
    on_event(e);
    std::string().swap(partial_);  // an idle connection keeps no assembly buffer
  }
  return used;
}

}  // namespace ac::net::wire

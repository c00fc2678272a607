// RFC 6455 framing, written for a harness: the encoder can produce any frame, valid or not
// (the fuzzer sends fragmented control frames, bad opcodes, wrong lengths), and the decoder
// reports every violation a target commits instead of hiding it, so a transcript can show it.
// Used by the harness's WebSocket client; the reference lobby's server side uses Boost.Beast.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ac::ws {

namespace opcode {
inline constexpr std::uint8_t continuation = 0x0;
inline constexpr std::uint8_t text = 0x1;
inline constexpr std::uint8_t binary = 0x2;
inline constexpr std::uint8_t close = 0x8;
inline constexpr std::uint8_t ping = 0x9;
inline constexpr std::uint8_t pong = 0xA;
}  // namespace opcode

struct FrameSpec {
  std::uint8_t opcode = opcode::text;  // any 4-bit value, valid or not
  std::string payload;
  bool fin = true;
  std::uint8_t rsv = 0;                     // RSV1..3 bits (0..7)
  bool masked = true;                       // clients must mask (RFC 6455 §5.3)
  std::array<std::uint8_t, 4> mask_key{0x12, 0x34, 0x56, 0x78};
  std::optional<std::uint64_t> declared_length;  // lie about the payload length (fuzzing)
};

// Bytes of one frame. Never fails: invalid specs produce invalid frames on purpose.
std::string encode(const FrameSpec& spec);
// A close frame payload: 2-byte code + UTF-8 reason (RFC 6455 §5.5.1).
std::string close_payload(std::uint16_t code, std::string_view reason);

struct Frame {
  std::uint8_t opcode = 0;
  bool fin = true;
  std::uint8_t rsv = 0;
  bool masked = false;
  std::string payload;  // unmasked
};

// Incremental frame decoder. Feed bytes with parse(); it consumes complete frames.
class FrameDecoder {
 public:
  enum class Result { need_more, frame, error };
  explicit FrameDecoder(std::uint64_t max_payload) : max_payload_(max_payload) {}
  // On `frame`, `out` holds the frame and `consumed` the bytes used. On `error`, `error`
  // says what is wrong (e.g. "frame length 2^63 exceeds the limit"), nothing is consumed.
  Result parse(std::string_view data, Frame& out, std::size_t& consumed, std::string& error) const;

 private:
  std::uint64_t max_payload_;
};

// A whole message or a control event, after reassembly of fragments.
struct Event {
  enum class Kind { text, binary, ping, pong, close, violation };
  Kind kind = Kind::text;
  std::string data;             // message payload, ping/pong payload, or violation description
  std::uint16_t close_code = 0; // for close: 1005 when the frame carried no code
  std::string close_reason;
  bool invalid_utf8 = false;    // a text message or close reason that is not UTF-8
};

// "text", "binary", "ping", "pong", "close" or "violation": the name transcripts use.
const char* kind_name(Event::Kind kind);

// Reassembles fragmented messages and checks the RFC 6455 rules a peer must follow. Rule
// breaks become Kind::violation events (the caller decides whether to fail the connection).
class MessageAssembler {
 public:
  explicit MessageAssembler(std::size_t max_message) : max_message_(max_message) {}
  // Returns an event when the frame completes one; nullopt for a non-final fragment.
  std::optional<Event> feed(Frame&& frame, bool expect_masked);

 private:
  std::size_t max_message_;
  bool in_message_ = false;
  std::uint8_t message_opcode_ = 0;
  std::string partial_;
};

bool is_valid_utf8(std::string_view s);
// RFC 6455 §7.4: may this code appear in a close frame?
bool is_valid_close_code(std::uint16_t code);

}  // namespace ac::ws

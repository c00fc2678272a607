#include "harness/websocket/frame.hpp"

#include "harness/json/strict_reader.hpp"

namespace ac::ws {

std::string encode(const FrameSpec& spec) {
  std::string out;
  const std::uint64_t len = spec.declared_length.value_or(spec.payload.size());
  out.reserve(spec.payload.size() + 14);
  out.push_back(static_cast<char>((spec.fin ? 0x80 : 0x00) | ((spec.rsv & 0x7) << 4) | (spec.opcode & 0x0F)));
  const std::uint8_t mask_bit = spec.masked ? 0x80 : 0x00;
  if (len < 126) {
    out.push_back(static_cast<char>(mask_bit | len));
  } else if (len <= 0xFFFF) {
    out.push_back(static_cast<char>(mask_bit | 126));
    out.push_back(static_cast<char>((len >> 8) & 0xFF));
    out.push_back(static_cast<char>(len & 0xFF));
  } else {
    out.push_back(static_cast<char>(mask_bit | 127));
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((len >> shift) & 0xFF));
  }
  if (spec.masked) {
    for (auto b : spec.mask_key) out.push_back(static_cast<char>(b));
    // Appended whole, then masked in place: a push_back per byte was 2.5 % of a fuzz campaign.
    const std::size_t at = out.size();
    out += spec.payload;
    for (std::size_t i = 0; i < spec.payload.size(); ++i) out[at + i] = static_cast<char>(static_cast<std::uint8_t>(out[at + i]) ^ spec.mask_key[i % 4]);
  } else {
    out += spec.payload;
  }
  return out;
}

std::string close_payload(std::uint16_t code, std::string_view reason) {
  std::string out;
  out.push_back(static_cast<char>(code >> 8));
  out.push_back(static_cast<char>(code & 0xFF));
  out.append(reason);
  return out;
}

FrameDecoder::Result FrameDecoder::parse(std::string_view data, Frame& out, std::size_t& consumed,
                                         std::string& error) const {
  const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
  if (data.size() < 2) return Result::need_more;
  const bool masked = (p[1] & 0x80) != 0;
  std::uint64_t len = p[1] & 0x7F;
  std::size_t pos = 2;
  if (len == 126) {
    if (data.size() < 4) return Result::need_more;
    len = (std::uint64_t{p[2]} << 8) | p[3];
    pos = 4;
  } else if (len == 127) {
    if (data.size() < 10) return Result::need_more;
    len = 0;
    for (int i = 0; i < 8; ++i) len = (len << 8) | p[2 + i];
    pos = 10;
    if (len >> 63) {
      error = "64-bit frame length with the most significant bit set (RFC 6455 §5.2)";
      return Result::error;
    }
  }
  if (len > max_payload_) {
    error = "frame payload of " + std::to_string(len) + " bytes exceeds the limit of " + std::to_string(max_payload_);
    return Result::error;
  }
  std::array<std::uint8_t, 4> key{};
  if (masked) {
    if (data.size() < pos + 4) return Result::need_more;
    for (int i = 0; i < 4; ++i) key[i] = p[pos + i];
    pos += 4;
  }
  if (data.size() - pos < len) return Result::need_more;
  out.fin = (p[0] & 0x80) != 0;
  out.rsv = (p[0] >> 4) & 0x7;
  out.opcode = p[0] & 0x0F;
  out.masked = masked;
  out.payload.assign(data.data() + pos, static_cast<std::size_t>(len));
  if (masked) {
    for (std::size_t i = 0; i < out.payload.size(); ++i) out.payload[i] = static_cast<char>(out.payload[i] ^ key[i % 4]);
  }
  consumed = pos + static_cast<std::size_t>(len);
  return Result::frame;
}

bool is_valid_utf8(std::string_view s) {
  json::Utf8Problem problem{};
  return !json::find_encoding_problem(s, problem, /*nul_is_error=*/false);
}

bool is_valid_close_code(std::uint16_t code) {
  if (code >= 3000 && code <= 4999) return true;
  switch (code) {
    case 1000: case 1001: case 1002: case 1003: case 1007: case 1008: case 1009: case 1010: case 1011: case 1012:
    case 1013: case 1014:
      return true;
    default:
      return false;
  }
}

std::optional<Event> MessageAssembler::feed(Frame&& frame, bool expect_masked) {
  auto violation = [](std::string what) {
    Event e;
    e.kind = Event::Kind::violation;
    e.data = std::move(what);
    return e;
  };
  if (frame.masked != expect_masked) {
    return violation(expect_masked ? "unmasked frame from a client (RFC 6455 §5.1)"
                                   : "masked frame from a server (RFC 6455 §5.1: a server MUST NOT mask)");
  }
  if (frame.rsv != 0) return violation("RSV bits set without a negotiated extension (RFC 6455 §5.2)");
  const std::uint8_t op = frame.opcode;
  if (op >= opcode::close) {
    if (op > opcode::pong) return violation("reserved control opcode 0x" + std::to_string(op) + " (RFC 6455 §5.2)");
    if (!frame.fin) return violation("fragmented control frame (RFC 6455 §5.5)");
    if (frame.payload.size() > 125) return violation("control frame payload over 125 bytes (RFC 6455 §5.5)");
    Event e;
    if (op == opcode::ping) {
      e.kind = Event::Kind::ping;
      e.data = std::move(frame.payload);
    } else if (op == opcode::pong) {
      e.kind = Event::Kind::pong;
      e.data = std::move(frame.payload);
    } else {
      e.kind = Event::Kind::close;
      if (frame.payload.empty()) {
        e.close_code = 1005;
      } else if (frame.payload.size() == 1) {
        return violation("close frame with a 1-byte payload (RFC 6455 §5.5.1)");
      } else {
        e.close_code = static_cast<std::uint16_t>((static_cast<std::uint8_t>(frame.payload[0]) << 8) |
                                                  static_cast<std::uint8_t>(frame.payload[1]));
        e.close_reason = frame.payload.substr(2);
        e.invalid_utf8 = !is_valid_utf8(e.close_reason);
      }
    }
    return e;
  }
  if (op != opcode::continuation && op != opcode::text && op != opcode::binary) {
    return violation("reserved data opcode 0x" + std::to_string(op) + " (RFC 6455 §5.2)");
  }
  if (op == opcode::continuation && !in_message_) return violation("continuation frame without a message to continue");
  if (op != opcode::continuation && in_message_) return violation("new data frame while a fragmented message is open");
  if (op != opcode::continuation) {
    message_opcode_ = op;
    partial_.clear();
  }
  if (partial_.size() + frame.payload.size() > max_message_) {
    in_message_ = false;
    partial_.clear();
    return violation("message larger than " + std::to_string(max_message_) + " bytes");
  }
  partial_ += frame.payload;
  if (!frame.fin) {
    in_message_ = true;
    return std::nullopt;
  }
  in_message_ = false;
  Event e;
  e.kind = message_opcode_ == opcode::text ? Event::Kind::text : Event::Kind::binary;
  e.data = std::move(partial_);
  partial_.clear();
  if (e.kind == Event::Kind::text) e.invalid_utf8 = !is_valid_utf8(e.data);
  return e;
}

const char* kind_name(Event::Kind kind) {
  switch (kind) {
    case Event::Kind::text: return "text";
    case Event::Kind::binary: return "binary";
    case Event::Kind::ping: return "ping";
    case Event::Kind::pong: return "pong";
    case Event::Kind::close: return "close";
    case Event::Kind::violation: return "violation";
  }
  return "text";
}

}  // namespace ac::ws

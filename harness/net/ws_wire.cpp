#include "harness/net/ws_wire.hpp"

#include <cstring>

#include "harness/json/strict_reader.hpp"

namespace ac::net::wire {

void append_frame(std::string& out, std::uint8_t op, std::string_view payload) {
  const std::size_t n = payload.size();
  char header[10];
  header[0] = static_cast<char>(0x80 | (op & 0x0F));
  std::size_t h = 2;
  if (n < 126) {
    header[1] = static_cast<char>(n);
  } else if (n <= 0xFFFF) {
    header[1] = 126;
    header[2] = static_cast<char>((n >> 8) & 0xFF);
    header[3] = static_cast<char>(n & 0xFF);
    h = 4;
  } else {
    header[1] = 127;
    for (int i = 0; i < 8; ++i) header[2 + i] = static_cast<char>((static_cast<std::uint64_t>(n) >> (8 * (7 - i))) & 0xFF);
    h = 10;
  }
  out.append(header, h);
  out.append(payload);
}

std::string close_payload(std::uint16_t code, std::string_view reason) {
  std::string out;
  out += static_cast<char>(code >> 8);
  out += static_cast<char>(code & 0xFF);
  std::size_t keep = std::min<std::size_t>(reason.size(), 123);
  // Never cut inside a UTF-8 sequence: back up to the start of the character.
  while (keep > 0 && keep < reason.size() && (static_cast<unsigned char>(reason[keep]) & 0xC0) == 0x80) --keep;
  out.append(reason.substr(0, keep));
  return out;
}

bool valid_close_code(std::uint16_t code) {
  if (code >= 3000 && code <= 4999) return true;
  switch (code) {
    case 1000: case 1001: case 1002: case 1003: case 1007: case 1008: case 1009: case 1010: case 1011: case 1012:
    case 1013: case 1014:
      return true;
    default:
      return false;
  }
}

void unmask(char* data, std::size_t n, const std::uint8_t key[4], std::size_t phase) {
  std::uint8_t k[4];
  for (std::size_t i = 0; i < 4; ++i) k[i] = key[(i + phase) & 3];
  std::size_t i = 0;
  if (n >= 16) {
    // Eight bytes at a time: the key repeated twice, applied to unaligned words via memcpy.
    std::uint64_t word_key;
    std::uint8_t kk[8] = {k[0], k[1], k[2], k[3], k[0], k[1], k[2], k[3]};
    std::memcpy(&word_key, kk, 8);
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, data + i, 8);
      w ^= word_key;
      std::memcpy(data + i, &w, 8);
    }
  }
  for (; i < n; ++i) data[i] = static_cast<char>(data[i] ^ k[i & 3]);
}

bool ClientReader::valid_text(std::string_view s) const {
  // ASCII runs eight bytes at a time; the first non-ASCII byte hands the rest to the strict
  // reader's validator (RFC 3629: no overlongs, no surrogates), the one check of the project.
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ULL) break;
  }
  for (; i < s.size(); ++i) {
    if (static_cast<unsigned char>(s[i]) & 0x80) break;
  }
  if (i == s.size()) return true;
  json::Utf8Problem problem{};
  return !json::find_encoding_problem(s.substr(i), problem, /*nul_is_error=*/false);
}

ClientReader::Step ClientReader::parse_header(const unsigned char* p, std::size_t n, Header& h, Event& v) {
  auto stop = [&](std::uint16_t code, const char* what) {
    v.kind = Event::Kind::violation;
    v.close_code = code;
    v.what = what;
    return Step::stop;
  };
  if (n < 2) return Step::need_more;
  h.fin = (p[0] & 0x80) != 0;
  const std::uint8_t rsv = (p[0] >> 4) & 0x07;
  h.opcode = p[0] & 0x0F;
  const bool masked = (p[1] & 0x80) != 0;
  std::uint64_t len = p[1] & 0x7F;
  // Checks that need only the first two bytes come first, so a bad frame fails at once.
  if (rsv != 0) return stop(1002, "RSV bits set without a negotiated extension (RFC 6455 §5.2)");
  const bool control = h.opcode >= opcode::close;
  if (control) {
    if (h.opcode > opcode::pong) return stop(1002, "reserved control opcode (RFC 6455 §5.2)");
    if (!h.fin) return stop(1002, "fragmented control frame (RFC 6455 §5.5)");
    if (len > 125) return stop(1002, "control frame payload over 125 bytes (RFC 6455 §5.5)");
  } else if (h.opcode > opcode::binary) {
    return stop(1002, "reserved data opcode (RFC 6455 §5.2)");
  }
  if (!masked) return stop(1002, "unmasked frame from a client (RFC 6455 §5.1)");
  std::size_t size = 2;
  if (len == 126) {
    if (n < 4) return Step::need_more;
    len = (std::uint64_t{p[2]} << 8) | p[3];
    if (len < 126) return stop(1002, "payload length not in its minimal encoding (RFC 6455 §5.2)");
    size = 4;
  } else if (len == 127) {
    if (n < 10) return Step::need_more;
    len = 0;
    for (int i = 0; i < 8; ++i) len = (len << 8) | p[2 + i];
    if (len >> 63) return stop(1002, "64-bit payload length with the most significant bit set (RFC 6455 §5.2)");
    if (len <= 0xFFFF) return stop(1002, "payload length not in its minimal encoding (RFC 6455 §5.2)");
    size = 10;
  }
  // The size limit applies to the whole message, fragments included, and is checked from the
  // header: a peer announcing 2^62 bytes is refused before it sends them.
  if (!control && len > max_message_ - (in_message_ ? std::min(partial_.size(), max_message_) : 0)) {
    return stop(1009, "message too big");
  }
  if (n < size + 4) return Step::need_more;
  std::memcpy(h.key, p + size, 4);
  h.size = size + 4;
  h.length = len;
  return Step::frame;
}

}  // namespace ac::net::wire

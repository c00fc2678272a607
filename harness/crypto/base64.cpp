// Strict base64 / base64url: one accepted spelling per byte string (see base64.hpp).
#include "harness/crypto/base64.hpp"

#include <array>
#include <cstdint>

namespace ac::crypto {
namespace {

constexpr std::string_view kStd = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr std::uint8_t kInvalid = 0xFF;

constexpr std::array<std::uint8_t, 256> make_table(std::string_view alphabet) {
  std::array<std::uint8_t, 256> t{};
  for (auto& v : t) v = kInvalid;
  for (std::size_t i = 0; i < alphabet.size(); ++i) t[static_cast<unsigned char>(alphabet[i])] = static_cast<std::uint8_t>(i);
  return t;
}
constexpr auto kStdTable = make_table(kStd);
constexpr auto kUrlTable = make_table(kUrl);

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

std::string encode(std::string_view in, std::string_view alphabet, bool pad) {
  std::string out;
  out.reserve(base64_encoded_size(in.size()));
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t{p[i]} << 16) | (std::uint32_t{p[i + 1]} << 8) | p[i + 2];
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += alphabet[v & 63];
  }
  const std::size_t rest = in.size() - i;
  if (rest == 1) {
    const std::uint32_t v = std::uint32_t{p[i]} << 16;
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    if (pad) out += "==";
  } else if (rest == 2) {
    const std::uint32_t v = (std::uint32_t{p[i]} << 16) | (std::uint32_t{p[i + 1]} << 8);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    if (pad) out += '=';
  }
  return out;
}

Unexpected<Base64Error> fail(Base64Rule rule, std::size_t offset, std::string message) {
  return unexpected(Base64Error{rule, offset, std::move(message)});
}

// Classifies a byte that is not in the alphabet (and not '=' in a valid padding position).
Unexpected<Base64Error> bad_char(std::string_view text, std::size_t i, bool url) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (is_space(c)) return fail(Base64Rule::whitespace, i, "whitespace is not allowed");
  if (c == '=') {
    return fail(Base64Rule::bad_padding, i, url ? "base64url (RFC 7515 §2) is unpadded: '=' is not allowed" : "'=' only as final padding");
  }
  std::string m = "byte 0x";
  const char* hex = "0123456789abcdef";
  m += hex[c >> 4];
  m += hex[c & 15];
  m += " is not in the ";
  m += url ? "base64url" : "base64";
  m += " alphabet";
  if (url && (c == '+' || c == '/')) m += " (standard-alphabet character in base64url)";
  if (!url && (c == '-' || c == '_')) m += " (base64url character in standard base64)";
  return fail(Base64Rule::invalid_character, i, std::move(m));
}

// Decodes `text` without padding (its length mod 4 is 0, 2 or 3); `padded_len` is the length
// including padding, for offsets. Checks alphabet and canonical trailing bits.
Expected<std::string, Base64Error> decode_body(std::string_view text, const std::array<std::uint8_t, 256>& table, bool url) {
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  const std::size_t full = text.size() / 4 * 4;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = 0; i < full; i += 4) {
    const std::uint8_t a = table[p[i]], b = table[p[i + 1]], c = table[p[i + 2]], d = table[p[i + 3]];
    if ((a | b | c | d) & 0x80) {
      for (std::size_t k = i; k < i + 4; ++k)
        if (table[p[k]] == kInvalid) return bad_char(text, k, url);
    }
    const std::uint32_t v = (std::uint32_t{a} << 18) | (std::uint32_t{b} << 12) | (std::uint32_t{c} << 6) | d;
    out += static_cast<char>((v >> 16) & 0xFF);
    out += static_cast<char>((v >> 8) & 0xFF);
    out += static_cast<char>(v & 0xFF);
  }
  const std::size_t rest = text.size() - full;
  if (rest == 0) return out;
  for (std::size_t k = full; k < text.size(); ++k)
    if (table[p[k]] == kInvalid) return bad_char(text, k, url);
  const std::uint8_t a = table[p[full]], b = table[p[full + 1]];
  if (rest == 2) {
    if (b & 0x0F) return fail(Base64Rule::non_canonical, full + 1, "unused trailing bits of the last character are not zero");
    out += static_cast<char>((a << 2) | (b >> 4));
  } else {  // rest == 3
    const std::uint8_t c = table[p[full + 2]];
    if (c & 0x03) return fail(Base64Rule::non_canonical, full + 2, "unused trailing bits of the last character are not zero");
    out += static_cast<char>((a << 2) | (b >> 4));
    out += static_cast<char>(((b & 0x0F) << 4) | (c >> 2));
  }
  return out;
}

}  // namespace

std::string_view rule_name(Base64Rule rule) {
  switch (rule) {
    case Base64Rule::invalid_character: return "invalid-character";
    case Base64Rule::whitespace: return "whitespace";
    case Base64Rule::bad_length: return "bad-length";
    case Base64Rule::bad_padding: return "bad-padding";
    case Base64Rule::non_canonical: return "non-canonical";
  }
  return "unknown";
}

std::string Base64Error::describe() const {
  return std::string(rule_name(rule)) + " at offset " + std::to_string(offset) + ": " + message;
}

std::string base64_encode(std::string_view bytes) { return encode(bytes, kStd, true); }
std::string base64url_encode(std::string_view bytes) { return encode(bytes, kUrl, false); }

Expected<std::string, Base64Error> base64_decode(std::string_view text) {
  // Whitespace and foreign characters are reported before length problems: "has a newline"
  // says more than "length 61 is not a multiple of 4".
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (kStdTable[c] == kInvalid && c != '=') return bad_char(text, i, false);
  }
  if (text.size() % 4 != 0) {
    return fail(Base64Rule::bad_length, text.size(),
                "length " + std::to_string(text.size()) + " is not a multiple of 4 (padding missing or extra characters)");
  }
  std::size_t pad = 0;
  while (pad < text.size() && pad < 3 && text[text.size() - 1 - pad] == '=') ++pad;
  if (pad == 3) return fail(Base64Rule::bad_padding, text.size() - 3, "at most two '=' padding characters");
  const std::string_view body = text.substr(0, text.size() - pad);
  if (const auto eq = body.find('='); eq != std::string_view::npos) {
    return fail(Base64Rule::bad_padding, eq, "'=' only as final padding");
  }
  return decode_body(body, kStdTable, false);
}

Expected<std::string, Base64Error> base64url_decode(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (kUrlTable[static_cast<unsigned char>(text[i])] == kInvalid) return bad_char(text, i, true);
  }
  if (text.size() % 4 == 1) {
    return fail(Base64Rule::bad_length, text.size(), "length " + std::to_string(text.size()) + " mod 4 == 1 encodes no whole byte");
  }
  return decode_body(text, kUrlTable, true);
}

}  // namespace ac::crypto

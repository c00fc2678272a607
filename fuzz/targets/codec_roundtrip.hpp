// The property every codec fuzzer checks (fuzz/targets/codec_<protocol>.cpp): arbitrary bytes
// into decode() must never crash; a failure must be a complete CodecError; a success must be
// lossless (the typed message prints back to exactly the JSON the strict reader read) and must
// survive encode -> decode unchanged. Any violation abort()s so libFuzzer keeps the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/codec_error.hpp"

namespace ac::fuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "codec fuzz property violated: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// Small limits keep each run fast; the codec must honour them.
inline json::ReadLimits fuzz_limits() {
  json::ReadLimits limits;
  limits.max_bytes = 1u << 16;
  limits.max_depth = 64;
  return limits;
}

template <typename Decode, typename Encode, typename ToJson>
int check_codec(const std::uint8_t* data, std::size_t size, Decode decode, Encode encode, ToJson to_json) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto limits = fuzz_limits();
  auto m = decode(bytes, limits);
  if (!m) {
    const proto::CodecError& e = m.error();
    if (e.code.empty() || e.rule.empty() || e.message.empty()) fail("incomplete CodecError", e.describe());
    if (e.offset && *e.offset > size) fail("error offset beyond the input", e.describe());
    return 0;
  }
  // Lossless: the typed form prints back to the value that was read.
  auto read = json::parse_strict(bytes, limits);
  if (!read) fail("decode accepted what the strict reader rejects", read.error().describe());
  if (to_json(*m) != *read) fail("typed form differs from the input", to_json(*m).dump() + "\n" + read->dump());
  // Stable: encode -> decode gives the same message and the same bytes again.
  const std::string encoded = encode(*m);
  auto again = decode(encoded, limits);
  if (!again) fail("re-encoded message does not decode", again.error().describe() + "\n" + encoded);
  if (!(*again == *m)) fail("re-decoded message differs", encoded);
  if (encode(*again) != encoded) fail("encoding is not stable", encoded);
  return 0;
}

}  // namespace ac::fuzz

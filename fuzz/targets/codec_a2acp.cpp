// libFuzzer target: arbitrary bytes into the a2acp typed codec (see codec_roundtrip.hpp for the
// property). Seeds: fixtures/a2acp/{valid,invalid} (fuzz/seeds/codec_a2acp.txt); dictionary:
// fuzz/dict/codec_a2acp.dict.
#include "fuzz/targets/codec_roundtrip.hpp"
#include "harness/protocols/a2acp/codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace c = ac::proto::a2acp;
  return ac::fuzz::check_codec(
      data, size, [](std::string_view b, const ac::json::ReadLimits& l) { return c::decode(b, l); },
      [](const c::Message& m) { return c::encode(m); }, [](const c::Message& m) { return c::to_json(m); });
}

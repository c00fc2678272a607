// libFuzzer target: arbitrary bytes into the chopsticks typed codec (see codec_roundtrip.hpp for the
// property). Seeds: fixtures/chopsticks/{valid,invalid} (fuzz/seeds/codec_chopsticks.txt); dictionary:
// fuzz/dict/codec_chopsticks.dict.
#include "fuzz/targets/codec_roundtrip.hpp"
#include "harness/protocols/chopsticks/codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace c = ac::proto::chopsticks;
  return ac::fuzz::check_codec(
      data, size, [](std::string_view b, const ac::json::ReadLimits& l) { return c::decode(b, l); },
      [](const c::Message& m) { return c::encode(m); }, [](const c::Message& m) { return c::to_json(m); });
}

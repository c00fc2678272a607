// libFuzzer target: arbitrary bytes into the agentprotocol typed codec (see codec_roundtrip.hpp for the
// property). Seeds: fixtures/agentprotocol/{valid,invalid} (fuzz/seeds/codec_agentprotocol.txt); dictionary:
// fuzz/dict/codec_agentprotocol.dict.
#include "fuzz/targets/codec_roundtrip.hpp"
#include "harness/protocols/agentprotocol/codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace c = ac::proto::agentprotocol;
  return ac::fuzz::check_codec(
      data, size, [](std::string_view b, const ac::json::ReadLimits& l) { return c::decode(b, l); },
      [](const c::Message& m) { return c::encode(m); }, [](const c::Message& m) { return c::to_json(m); });
}

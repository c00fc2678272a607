// Parse + full validation of a typical ~500-byte ALP INVOKE_CAPABILITY_REQUEST, against bare
// nlohmann::json::parse of the same bytes, in the same binary and run (issue 2 §6: at least
// 100,000 messages/s on one core and no slower than 3x bare parse). Figures: items/s.
//
//   build/bin/bench_parse_validate --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <string>

#include <nlohmann/json.hpp>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/alp/codec.hpp"
#include "harness/protocols/profile.hpp"

namespace {

// Compact, ~500 bytes: the envelope with the common members (conversation_id, metadata), a
// namespaced capability, a version, and a small input_data object with a nested object and an
// array.
const std::string kMessage =
    R"({"message_id":"a7b8c9d0-e1f2-4a3b-9c4d-5e6f7a8b9c0d","protocol_version":"0.2.0",)"
    R"("sender_id":"agent-vision-21c9","receiver_id":"agent-translator-7f3a",)"
    R"("message_type":"INVOKE_CAPABILITY_REQUEST","payload":{"capability_name":)"
    R"("com.example.TranslationService.translateText","capability_version":"1.0.2",)"
    R"("input_data":{"text":"Guten Morgen","source_lang":"de",)"
    R"("target_lang":"en","options":{"glossary":["Morgen"]}}},)"
    R"("timestamp":"2023-10-27T10:33:00Z","conversation_id":"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",)"
    R"("metadata":{"priority":1}})";

const ac::proto::Profile& alp_profile() { return ac::proto::Catalog::builtin().profile(ac::proto::ProtocolId::alp); }

void set_counters(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kMessage.size()));
  state.counters["message_bytes"] = static_cast<double>(kMessage.size());
}

// Baseline: nlohmann's own parser, no checks beyond JSON syntax.
void BM_BareNlohmannParse(benchmark::State& state) {
  for (auto _ : state) {
    auto j = nlohmann::json::parse(kMessage);
    benchmark::DoNotOptimize(j);
  }
  set_counters(state);
}
BENCHMARK(BM_BareNlohmannParse);

// The strict reader alone (UTF-8, NUL, duplicates, depth, trailing data).
void BM_StrictParse(benchmark::State& state) {
  for (auto _ : state) {
    auto j = ac::json::parse_strict(kMessage);
    if (!j) state.SkipWithError("strict parse failed");
    benchmark::DoNotOptimize(j);
  }
  set_counters(state);
}
BENCHMARK(BM_StrictParse);

// Parse + full validation: strict reader, discriminator, valijson against the message schema.
void BM_ProfileDecode(benchmark::State& state) {
  const auto& profile = alp_profile();
  for (auto _ : state) {
    auto d = profile.decode(kMessage);
    if (!d) state.SkipWithError(d.error().describe().c_str());
    benchmark::DoNotOptimize(d);
  }
  set_counters(state);
}
BENCHMARK(BM_ProfileDecode);

// The same plus conversion to alp::Message.
void BM_TypedAlpDecode(benchmark::State& state) {
  alp_profile();  // load the catalog outside the timing
  for (auto _ : state) {
    auto m = ac::proto::alp::decode(kMessage);
    if (!m) state.SkipWithError(m.error().describe().c_str());
    benchmark::DoNotOptimize(m);
  }
  set_counters(state);
}
BENCHMARK(BM_TypedAlpDecode);

// Typed message -> bytes, for reference.
void BM_TypedAlpEncode(benchmark::State& state) {
  auto m = ac::proto::alp::decode(kMessage);
  if (!m) {
    state.SkipWithError("decode failed");
    return;
  }
  for (auto _ : state) {
    auto bytes = ac::proto::alp::encode(*m);
    benchmark::DoNotOptimize(bytes);
  }
  set_counters(state);
}
BENCHMARK(BM_TypedAlpEncode);

}  // namespace

// RFC 8785 canonicalization throughput (target: >= 50 MB/s on one core for a ~100 KB mixed
// document), and the strict reader against bare nlohmann::json::parse on the same bytes.
//
// The document is generated once, deterministically: nested objects and arrays, numbers of every
// shape (small and huge integers, fractions, exponents up and down, -0), ASCII, Latin, CJK and
// emoji strings, escapes and control characters, and a few objects whose names need the UTF-16
// re-sort. Every benchmark reports bytes/s over the same input text (nlohmann's compact dump of
// the document), so the figures compare directly:
//   BM_Canonicalize      canonicalize(value)        the serializer alone, from a parsed value
//   BM_CanonicalizeText  canonicalize_text(text)    strict parse + serializer: bytes in, bytes out
//   BM_ParseStrict       parse_strict(text)
//   BM_NlohmannParse     nlohmann::json::parse(text)
//   BM_NlohmannDump      value.dump()               nlohmann's own (non-canonical) serializer
// Run: build-<you>/bin/bench_canonical --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>

#include "harness/json/canonical.hpp"

namespace {

using ac::json::Json;

class DocumentGenerator {
 public:
  Json document(std::size_t target_bytes) {
    Json root = Json::object();
    std::size_t i = 0;
    while (root.dump().size() < target_bytes) {
      root["record_" + std::to_string(i++)] = record();
    }
    return root;
  }

 private:
  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

  Json number() {
    switch (pick(9)) {
      case 0: return Json(static_cast<std::int64_t>(pick(1000)));
      case 1: return Json(-static_cast<std::int64_t>(pick(100000)));
      case 2: return Json(static_cast<std::uint64_t>(rng_()));  // beyond 2^53: converted to double
      case 3: return Json(std::uniform_real_distribution<double>(-1000, 1000)(rng_));
      case 4: return Json(std::uniform_real_distribution<double>(0, 1)(rng_) * 1e-9);  // 1.234e-10
      case 5: return Json(std::uniform_real_distribution<double>(1, 10)(rng_) * 1e25);  // 1.234e+25
      case 6: return Json(static_cast<double>(pick(100000)) / 100.0);                   // 123.45
      case 7: return Json(-0.0);
      default: return Json(333333333.33333329);
    }
  }

  std::string text() {
    static const char* const kPieces[] = {
        "agent",  "capability", "message", " ", "request-", "42",     "_",      "\u00e9t\u00e9",
        "\u20ac", "\u4e2d\u6587", "\U0001F600", "\"", "\\",      "\n",     "\t",     "\x01",
        "path/to", "\u00fc\u00df", "ok", "ERROR", "\u2028", "value",  "x",      "long text with spaces ",
    };
    std::string s;
    const std::size_t n = 1 + pick(8);
    for (std::size_t i = 0; i < n; ++i) s += kPieces[pick(sizeof kPieces / sizeof kPieces[0])];
    return s;
  }

  std::string name() {
    static const char* const kNames[] = {"id",        "type",     "payload", "from",       "to",      "timestamp",
                                         "agentId",   "version",  "data",    "items",      "status",  "meta",
                                         "\u00e9tat", "\u540d\u524d", "score", "tags",  "nested",  "count"};
    return kNames[pick(sizeof kNames / sizeof kNames[0])];
  }

  Json value(int depth) {
    const std::size_t kind = depth > 3 ? pick(3) : pick(5);
    if (kind == 0) return number();
    if (kind == 1) return Json(text());
    if (kind == 2) {
      switch (pick(3)) {
        case 0: return Json(nullptr);
        case 1: return Json(true);
        default: return Json(false);
      }
    }
    if (kind == 3) {
      Json a = Json::array();
      for (std::size_t i = 0, n = pick(6); i < n; ++i) a.push_back(value(depth + 1));
      return a;
    }
    Json o = Json::object();
    for (std::size_t i = 0, n = 1 + pick(6); i < n; ++i) o[name()] = value(depth + 1);
    return o;
  }

  Json record() {
    Json r = Json::object();
    r["id"] = "rec-" + std::to_string(rng_());
    r["type"] = text();
    r["payload"] = value(0);
    r["numbers"] = Json::array({number(), number(), number(), number()});
    if (pick(8) == 0) {
      // Names mixing U+E000..U+FFFF and astral characters: the UTF-16 re-sort path.
      r["mixed"] = {{"\uFB33", 1}, {"\U0001F600", 2}, {"\uE000", 3}, {"a", 4}};
    }
    return r;
  }

  std::mt19937_64 rng_{20240229};
};

const std::string& document_text() {
  static const std::string text = DocumentGenerator().document(100 * 1024).dump();
  return text;
}

const Json& document_value() {
  static const Json value = Json::parse(document_text());
  return value;
}

void BM_Canonicalize(benchmark::State& state) {
  const Json& value = document_value();
  std::size_t out = 0;
  for (auto _ : state) {
    auto canon = ac::json::canonicalize(value);
    if (!canon) {
      state.SkipWithError(canon.error().describe().c_str());
      return;
    }
    out = canon->size();
    benchmark::DoNotOptimize(canon->data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * document_text().size()));
  state.counters["input_bytes"] = static_cast<double>(document_text().size());
  state.counters["canonical_bytes"] = static_cast<double>(out);
}
BENCHMARK(BM_Canonicalize);

void BM_CanonicalizeText(benchmark::State& state) {
  const std::string& text = document_text();
  for (auto _ : state) {
    auto canon = ac::json::canonicalize_text(text);
    if (!canon) {
      state.SkipWithError(canon.error().describe().c_str());
      return;
    }
    benchmark::DoNotOptimize(canon->data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_CanonicalizeText);

void BM_ParseStrict(benchmark::State& state) {
  const std::string& text = document_text();
  for (auto _ : state) {
    auto parsed = ac::json::parse_strict(text);
    if (!parsed) {
      state.SkipWithError(parsed.error().describe().c_str());
      return;
    }
    benchmark::DoNotOptimize(&*parsed);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseStrict);

void BM_NlohmannParse(benchmark::State& state) {
  const std::string& text = document_text();
  for (auto _ : state) {
    auto parsed = Json::parse(text);
    benchmark::DoNotOptimize(&parsed);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_NlohmannParse);

void BM_NlohmannDump(benchmark::State& state) {
  const Json& value = document_value();
  for (auto _ : state) {
    auto text = value.dump();
    benchmark::DoNotOptimize(text.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * document_text().size()));
}
BENCHMARK(BM_NlohmannDump);

}  // namespace

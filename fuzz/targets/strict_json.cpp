// libFuzzer target fuzz_strict_json: arbitrary bytes into ac::json::parse_strict.
// Properties (abort() on violation, so libFuzzer records the input):
//   - a rejection carries a known rule, an offset inside the input (or at its end), a non-empty
//     message and a pointer, both valid UTF-8;
//   - an accepted value dumps (nlohmann) to text that parse_strict accepts again as the same
//     value, and canonicalizes: a value the strict reader accepts always has an RFC 8785 form,
//     which is itself accepted and canonical (canonicalizing it gives the same bytes).
// Seeds: fuzz/corpus/strict_json/ and the fixture directories in fuzz/seeds/strict_json.txt;
// dictionary fuzz/dict/strict_json.dict.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/json/canonical.hpp"
#include "harness/json/strict_reader.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ac::json;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = parse_strict(text);
  if (!parsed) {
    const JsonError& e = parsed.error();
    check(e.offset <= size);
    check(!e.message.empty());
    check(rule_name(e.rule) != std::string_view());
    Utf8Problem p{};
    check(!find_encoding_problem(e.pointer, p, /*nul_is_error=*/false));
    // The message is text too: callers put it into JSON answers (a quoted half UTF-8 sequence
    // made the reference hubs' error bodies unwritable, found by the fuzz_hub_* targets).
    check(!find_encoding_problem(e.message, p, /*nul_is_error=*/false));
    check(!e.describe().empty());
    return 0;
  }

  const std::string dumped = parsed->dump();
  auto again = parse_strict(dumped);
  check(again.has_value());
  check(*again == *parsed);

  auto canon = canonicalize(*parsed);
  check(canon.has_value());
  auto canon_again = canonicalize_text(*canon);
  check(canon_again.has_value());
  check(*canon_again == *canon);
  return 0;
}

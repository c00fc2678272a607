// Session generation: a protocol's valid seed flow, then 1-3 mutations (per round: a long seed
// flow takes several rounds, Profile::mutation_rounds) drawn from five families
//   field      guided by schemas/<protocol>: a required member removed, the type the schema
//              asks for swapped, enums, formats, patterns and bounds broken, members the schema
//              forbids added; then generic damage: empty, huge, NUL-carrying and unicode-edge
//              strings, IEEE and 64-bit boundary numbers, deep nesting, duplicate keys,
//              truncation, trailing garbage
//   structure  steps dropped, duplicated, moved, swapped (messages out of state, replays), and
//              the protocol's own (wrong versions, unknown ids, ...)
//   framing    binary instead of text, invalid UTF-8, fragmentation (with control frames
//              between fragments), reserved opcodes, RSV bits, oversized frames
//   timing     slow drip, sleeps, bursts, disconnects mid-flow, odd close codes
//   auth       the protocol's: missing, forged, expired, foreign credentials; bad signatures
// Only the seeded PRNG decides, so a seed fixes the whole sequence of sessions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "harness/fuzz/profile.hpp"

namespace ac::fuzz {

struct Families {
  bool field = true;
  bool structure = true;
  bool framing = true;
  bool timing = true;
  bool auth = true;
};
// "field,structure,framing,timing,auth" (any subset; "all").
Expected<Families, std::string> parse_families(std::string_view list);
std::string families_text(const Families& f);

// Session number `index` of the sequence of `seed`: a pure function of the three arguments
// (so parallel jobs and replays agree on what session N is).
Session generate(Protocol protocol, std::uint64_t seed, std::uint64_t index, const Families& families = {}, const Scope& scope = {});
// From a generator's current state.
Session generate(Protocol protocol, Rng& rng, const Families& families = {}, const Scope& scope = {});

// One message of the protocol damaged by a field mutation (schema-guided or generic) or raw
// text damage: what the hostile hub sends to clients. `what` says what was done.
std::string mutate_message(Rng& rng, Protocol protocol, const Json& message, std::string& what);

}  // namespace ac::fuzz

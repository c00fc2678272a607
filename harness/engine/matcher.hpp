// Matching an incoming message (or HTTP body) against a pattern from a case.
//
// A pattern is JSON where:
//   - a scalar matches an equal scalar (numbers by value: 1 == 1.0);
//   - an object matches an object that has at least those members, each matching (extra members
//     allowed; {"$exact": {...}} forbids them);
//   - an array matches an array of the same length, element by element;
//   - operators (an object whose only keys start with '$', or a shorthand string):
//       "$any"  "$present"  "$absent"  "$string" "$number" "$integer" "$boolean" "$object" "$array" "$null"
//       "$uuid" "$iso8601" "$nonempty"
//       {"$type": "string"}             {"$regex": "RE2 pattern"}   {"$uuid": true}  {"$iso8601": true}
//       {"$absent": true}               {"$one_of": [p1, p2]}       {"$not": p}      {"$exact": {...}}
//       {"$contains": [p1, ...]}        (each pi matches some element)
//       {"$ordered": [p1, ...]}         (elements matching p1, p2, ... appear in this order)
//       {"$len": n}  {"$min_len": n}  {"$max_len": n}  {"$min": x}  {"$max": x}
//       {"$includes": "substring"}      {"$starts_with": "prefix"}
// Variables (${name}) are substituted before matching.
//
// check_pattern() finds authoring errors in a pattern before any case runs (the suite loader
// and `agentconform lint` call it): an unknown shorthand or operator would otherwise only show
// at run time, as a FAIL of the target.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::engine {

using Json = nlohmann::json;

struct Mismatch {
  std::string pointer;   // where in the actual value
  std::string expected;  // the pattern there, or a description ("a UUID")
  std::string actual;    // what was there ("(absent)" when missing)

  std::string describe() const;
};

// nullopt when `actual` matches `pattern`.
std::optional<Mismatch> match(const Json& pattern, const Json& actual);
// For matching member presence: `actual` may be null when the member is absent.
std::optional<Mismatch> match_member(const Json& pattern, const Json* actual, const std::string& pointer);

// The matcher's vocabulary: the shorthand strings ("$uuid") and the operator keys ({"$regex": ...}).
const std::vector<std::string>& matcher_shorthands();
const std::vector<std::string>& matcher_operators();

struct PatternProblem {
  std::string pointer;  // JSON Pointer into the pattern ("" = the pattern itself)
  std::string message;  // what is wrong and what to write instead
};

// Every authoring error in a pattern: unknown "$word" shorthands (a string like "$uuuid" would
// be compared literally), unknown operators, operands of the wrong type ($regex that RE2 cannot
// compile, $len not a non-negative integer, $one_of not a non-empty array, ...). Strings holding
// ${...} placeholders are taken as they will be after substitution (not checked here).
std::vector<PatternProblem> check_pattern(const Json& pattern);

}  // namespace ac::engine

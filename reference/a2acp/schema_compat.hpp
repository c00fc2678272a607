// Schema compatibility for contract validation (a2acp-1.0.md §Contract Negotiation step 2
// "Schema compatibility check"): can every instance the `provided` schema allows be accepted by
// the `expected` schema? Deciding that exactly is undecidable for JSON Schema in general, so the
// broker checks the structural facts a capability spec states and reports incompatibility only
// when the two declarations contradict each other (reading A2-19):
//   - a property `expected` requires that `provided` neither requires nor declares;
//   - a property (or the root) whose declared `type`s in `provided` are not all allowed by
//     `expected` (integer is a number);
//   - `expected` has additionalProperties: false and `provided` declares a property it does not;
//   - the same rules, recursively, for properties both declare as objects (depth <= 16).
// A schema that states nothing about a property (no `type`) is compatible with anything.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ac::ref::a2acp {

struct Incompatibility {
  std::string pointer;  // where in the schemas ("/properties/record_count")
  std::string reason;   // one line
};

std::optional<Incompatibility> check_compatible(const nlohmann::json& provided, const nlohmann::json& expected);

// {"property": "type", ...} of an object schema's top-level properties, as in the spec's error
// example ("expected_schema": {"test_scenario_id": "string", ...}); "any" when untyped.
nlohmann::json type_summary(const nlohmann::json& schema);

}  // namespace ac::ref::a2acp

// The reference faults "<protocol>.schema.coerce-wrong-types" (reference/<protocol>/faults.json):
// the defect issue 14 names, "a field of the wrong type is accepted and stored". A lax
// implementation converts a member of the wrong JSON type into the type it expected and carries
// on (an id given as ["x"] read as "x", the string "false" read as false, a list given as a
// string read as a one-element list). The reference applies it, under the fault only, before its
// schema check, so the schema-derived negative cases (suites/<protocol>/generated/) can be
// shown to kill it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/profile.hpp"

namespace ac::ref {

// `message` with every member the profile refuses for its JSON type ("type" violations)
// converted the lax way, when that makes the profile accept it; nullopt otherwise (a missing
// member, an object where a string belongs...: the caller refuses the message as usual).
std::optional<nlohmann::json> coerce_wrong_types(const proto::Profile& profile, nlohmann::json message);

// The same for a hub that decodes frame text: the frame to decode, either the coerced text (kept
// in `storage`, which must outlive the view) or `frame` as it came, when it is no JSON object
// within `limits` or coercing does not help.
std::string_view coerce_wrong_types_in_text(const proto::Profile& profile, std::string_view frame,
                                            const json::ReadLimits& limits, std::string& storage);

}  // namespace ac::ref

// The five protocol profiles of the live fuzzer and what they share.
#pragma once

#include "harness/fuzz/profile.hpp"
#include "harness/protocols/profile.hpp"
#include "harness/protocols/typed/stamp.hpp"

namespace ac::fuzz {

const Profile& alp_profile();
const Profile& agora_profile();
const Profile& agentprotocol_profile();
const Profile& a2acp_profile();
const Profile& chopsticks_profile();

// The protocol's codec (schemas/<protocol>): the same rules the harness judges conformance by.
const proto::Profile& profile_of(Protocol p);

// Sets (or, with a discarded value, removes) a top-level member of a JSON text step; false when
// the step is not a JSON object (or only_if_present and the member is absent).
bool set_member(Step& step, const char* key, const Json& value, bool only_if_present = true);
// Sets the value at a JSON pointer of a JSON text step; false when it does not apply.
bool set_pointer(Step& step, const std::string& pointer, const Json& value);

// Indexes of the text steps whose payload contains `needle` (e.g. "\"hello\"").
std::vector<std::size_t> text_steps_with(const std::vector<Step>& s, std::string_view needle);

// Labels of every connection a list of steps opens.
std::vector<std::string> connection_labels(const std::vector<Step>& s);

}  // namespace ac::fuzz

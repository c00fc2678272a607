// "Did you mean ...?" for names a user typed: the nearest candidate by edit distance, when it is
// close enough to be a plausible typo. Used for target.json names, features, options.
#pragma once

#include <string>
#include <vector>

namespace ac {

// The candidate nearest to `typed` (Levenshtein distance, case-insensitive), or "" when none is
// within max(2, typed.size() / 3) edits.
std::string nearest_name(const std::string& typed, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or, with no near candidate, " (valid: a, b, c)" listing up to 12.
std::string did_you_mean(const std::string& typed, const std::vector<std::string>& candidates);

}  // namespace ac

// did_you_mean.hpp: the target.json flavour of "did you mean", on the one edit distance of
// closest_name.hpp (a looser threshold, and a list of valid names when none is near).
#include "harness/util/did_you_mean.hpp"

#include <algorithm>

#include "harness/util/closest_name.hpp"

namespace ac {

std::string nearest_name(const std::string& typed, const std::vector<std::string>& candidates) {
  if (typed.size() > 256) return "";  // a hostile "name" is not a typo
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, typed.size() / 3) + 1;
  for (const auto& c : candidates) {
    if (c.size() > 512) continue;
    const std::size_t d = edit_distance(typed, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& typed, const std::vector<std::string>& candidates) {
  if (const std::string near = nearest_name(typed, candidates); !near.empty()) return " (did you mean '" + near + "'?)";
  if (candidates.empty()) return " (none are defined)";
  std::string out = " (valid: ";
  for (std::size_t i = 0; i < candidates.size() && i < 12; ++i) out += (i ? ", " : "") + candidates[i];
  if (candidates.size() > 12) out += ", ...";
  return out + ")";
}

}  // namespace ac

#include "harness/util/did_you_mean.hpp"

#include <algorithm>
#include <cctype>

namespace ac {
namespace {

std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string nearest_name(const std::string& typed, const std::vector<std::string>& candidates) {
  if (typed.size() > 256) return "";  // a hostile "name" is not a typo
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, typed.size() / 3) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = distance(typed, c);
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

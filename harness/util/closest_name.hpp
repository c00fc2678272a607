// "Did you mean ...?" for names a case author typed (scenario keys, matchers, requirement ids,
// placeholders): the nearest candidate by edit distance (adjacent transpositions count as one
// edit), when it is near enough to be the intended one, and nothing otherwise (a list of every
// valid name is the caller's choice). Header-only; used by the suite linter and the matcher's
// pattern check. (harness/util/did_you_mean.hpp is the target.json variant on the same distance,
// which lists the valid names when none is near.)
#pragma once

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ac {

// Optimal string alignment distance (Levenshtein plus adjacent transpositions: "expcet" ->
// "expect" is 1), case-insensitive.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  auto low = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = low(a[i - 1]) == low(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && low(a[i - 1]) == low(b[j - 2]) && low(a[i - 2]) == low(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

// The candidate nearest to `word`, if it is within a third of the word's length (at least 1,
// at most 3 edits) and `word` is not itself a candidate. Ties go to the first candidate. Words
// shorter than 3 characters get no suggestion (any other short name is "near").
template <typename Range>
std::optional<std::string> closest_name(std::string_view word, const Range& candidates) {
  if (word.size() < 3 || word.size() > 256) return std::nullopt;
  const std::size_t limit = std::clamp<std::size_t>(word.size() / 3, 1, 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    const std::string_view candidate(c);
    if (candidate == word) return std::nullopt;
    if (candidate.size() > word.size() + limit || word.size() > candidate.size() + limit) continue;
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = std::string(candidate);
    }
  }
  return best;
}

// " (did you mean 'x'?)" or "" : appended to an error message.
template <typename Range>
std::string closest_name_suffix(std::string_view word, const Range& candidates, std::string_view quote = "'") {
  auto best = closest_name(word, candidates);
  if (!best) return "";
  return " (did you mean " + std::string(quote) + *best + std::string(quote) + "?)";
}

}  // namespace ac

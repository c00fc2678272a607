// Test support for the hostile-input tests: the built CLI (AC_CLI) run as a user would, and
// every output of a run (stdout, stderr, every file of the report directory) as one text to
// search for a canary.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/process.hpp"

namespace ac::testing {

inline Process cli(std::vector<std::string> args, const TempDir& dir) {
  args.insert(args.begin(), AC_CLI);
  return run_process(args, dir.path());
}

// stdout + stderr + the contents of every regular file under `dirs` (recursively), each
// prefixed with its name, so a failing search can say where the canary was found.
inline std::string everything(const Process& p, const std::vector<std::filesystem::path>& dirs) {
  std::string all = "== stdout\n" + p.out + "\n== stderr\n" + p.err + "\n";
  for (const auto& d : dirs) {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(d, ec); !ec && it != std::filesystem::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_regular_file()) all += "== " + it->path().string() + "\n" + slurp(it->path()) + "\n";
    }
  }
  return all;
}

// Where `needle` occurs in `haystack` (the "== name" header before it and 80 bytes around it),
// or "" when it does not.
inline std::string where(const std::string& haystack, const std::string& needle) {
  const auto at = haystack.find(needle);
  if (at == std::string::npos) return "";
  const auto header = haystack.rfind("\n== ", at);
  const std::string name = header == std::string::npos ? "" : haystack.substr(header + 1, haystack.find('\n', header + 1) - header - 1);
  const std::size_t from = at > 80 ? at - 80 : 0;
  return name + ": ..." + haystack.substr(from, needle.size() + 160) + "...";
}

}  // namespace ac::testing

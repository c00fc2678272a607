// Bounded reads of files and standard input. Every input the tool reads (target.json, suites,
// results files, replay files, stdin of the codec commands) goes through here, so `--config
// /dev/zero` or a 10 GiB file is refused with the limit named instead of exhausting memory.
// The limits themselves are listed in docs/limits.md.
#pragma once

#include <cstddef>
#include <string>

#include "harness/util/expected.hpp"

namespace ac {

struct ReadError {
  enum class Kind { cannot_open, cannot_read, too_large };
  Kind kind = Kind::cannot_open;
  std::string message;  // names the file (or "standard input") and, when too large, the limit
  // The exit code of the commands: 1 for input that is too large (invalid input), 2 for a file
  // that cannot be opened or read (a usage error: wrong path, a directory, no permission).
  int exit_code() const { return kind == Kind::too_large ? 1 : 2; }
};

// Reads a whole file, or standard input when path is "-". More than max_bytes is an error
// that names the limit ("larger than 1048576 bytes (the limit for target.json)" with `what`);
// reading stops at the first byte past the limit, so /dev/zero is refused at once.
Expected<std::string, ReadError> read_bounded(const std::string& path, std::size_t max_bytes, const std::string& what = "");

// The same with the message alone.
Expected<std::string, std::string> read_file_bounded(const std::string& path, std::size_t max_bytes,
                                                     const std::string& what = "");

}  // namespace ac

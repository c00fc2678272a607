// Bounded reads of files and standard input. Every input the tool reads (target.json, suites,
// results files, replay files, stdin of the codec commands) goes through here, so `--config
// /dev/zero` or a 10 GiB file is refused with the limit named instead of exhausting memory.
#pragma once

#include <cstddef>
#include <string>

#include "harness/util/expected.hpp"

namespace ac {

// Reads a whole file, or standard input when path is "-". More than max_bytes is an error
// that names the limit ("larger than 1048576 bytes (the limit for target.json)" with `what`).
Expected<std::string, std::string> read_file_bounded(const std::string& path, std::size_t max_bytes,
                                                     const std::string& what = "");

}  // namespace ac

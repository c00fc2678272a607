// Input/output helpers shared by the subcommands.
#pragma once

#include <cstddef>
#include <string>

#include "harness/util/expected.hpp"

namespace ac::cli {

// Reads a whole file, or standard input when path is "-" or empty. Inputs larger than
// max_bytes are refused rather than buffered without limit.
Expected<std::string, std::string> read_input(const std::string& path, std::size_t max_bytes = 64u * 1024u * 1024u);

// Writes bytes to a file, creating or truncating it; mode is applied to a newly created file.
Expected<bool, std::string> write_file(const std::string& path, const std::string& bytes, unsigned mode = 0644);

}  // namespace ac::cli

// Input/output helpers shared by the subcommands.
#pragma once

#include <cstddef>
#include <string>

#include "harness/util/expected.hpp"
#include "harness/util/read_file.hpp"

namespace ac::cli {

// The default limit of the codec commands' input (validate, canon, sign, verify): docs/limits.md.
constexpr std::size_t kInputLimit = 64u * 1024u * 1024u;

// Reads a whole file, or standard input when path is "-" or empty (harness/util/read_file.hpp).
// Inputs larger than max_bytes are refused rather than buffered without limit.
Expected<std::string, ReadError> read_input(const std::string& path, std::size_t max_bytes = kInputLimit,
                                            const std::string& what = "");

// Prints "COMMAND: MESSAGE" on stderr and returns the exit code of the read error (1 too large,
// 2 cannot open or read).
int report_read_error(const std::string& command, const ReadError& error);

// Writes bytes to a file, creating or truncating it; mode is applied to a newly created file.
Expected<bool, std::string> write_file(const std::string& path, const std::string& bytes, unsigned mode = 0644);

}  // namespace ac::cli

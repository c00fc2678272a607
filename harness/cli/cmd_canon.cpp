// agentconform canon [FILE|-]
// Writes the RFC 8785 canonical form of one JSON text to standard output: exactly the canonical
// bytes, no trailing newline, so the output can be hashed or signed as is (`... | sha256sum`).
// The input goes through the strict reader, so duplicate names, lone surrogates, NUL bytes,
// invalid UTF-8 and trailing data are errors, not silently "fixed".
// Exit: 0 written; 1 the input has no canonical form (rule, byte offset and JSON Pointer on
// standard error); 2 the input cannot be read (missing file) or usage error; 3 output failed.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "harness/cli/commands.hpp"
#include "harness/cli/io.hpp"
#include "harness/json/canonical.hpp"
#include "reports/text.hpp"

namespace ac::cli {
namespace {

struct CanonOptions {
  std::string input = "-";
};

int run_canon(const CanonOptions& o) {
  const std::string label = (o.input.empty() || o.input == "-") ? std::string("standard input") : o.input;
  auto input = read_input(o.input);
  if (!input) return report_read_error("canon", input.error());
  auto canon = json::canonicalize_text(*input);
  if (!canon) {
    std::cerr << "canon: " << reports::terminal_safe(label + ": " + canon.error().describe()) << "\n";
    return 1;
  }
  // stdio, not iostreams: the bytes go out unchanged and a failed write is detected at fflush.
  if (std::fwrite(canon->data(), 1, canon->size(), stdout) != canon->size() || std::fflush(stdout) != 0) {
    std::cerr << "canon: cannot write standard output\n";
    return 3;
  }
  return 0;
}

void add_canon(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<CanonOptions>();
  auto* cmd = app.add_subcommand("canon",
                                 "Write the RFC 8785 (JCS) canonical form of a JSON text to stdout, "
                                 "exactly the canonical bytes (no trailing newline)");
  cmd->add_option("input", opts->input, "file to read, or - for standard input")->capture_default_str();
  cmd->footer(
      "Exit status: 0 canonical form written; 1 invalid input (the rule, e.g. json.duplicate-key, "
      "the byte offset and the JSON Pointer go to stderr); 2 unreadable input or usage error.");
  cmd->callback([opts, &ctx] { ctx.exit_code = run_canon(*opts); });
}

}  // namespace

AC_REGISTER_COMMAND(20, add_canon);

}  // namespace ac::cli

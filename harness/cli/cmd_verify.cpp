// agentconform verify [FILE|-]
// Verifies an AgentProtocol 0.1 message's Ed25519 signature against its from.agentId
// (agentprotocol-0.1.md §Signature Verification). Prints "valid" (exit 0), or "invalid:" with
// the precise reason and the spec's error code (exit 1). The bytes are read strictly first:
// duplicate member names, invalid UTF-8 or trailing data are rejected before any crypto.
#include <iostream>
#include <string>

#include "harness/cli/commands.hpp"
#include "harness/cli/io.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"
#include "reports/text.hpp"

namespace ac::cli {
namespace {

namespace ap = proto::agentprotocol;

struct VerifyOptions {
  std::string input = "-";
};

int run_verify(const VerifyOptions& o) {
  auto text = read_input(o.input);
  if (!text) return report_read_error("verify", text.error());
  auto r = ap::verify_text(*text);
  if (!r) {
    std::cout << "invalid: " << r.error().code() << " " << reports::terminal_safe(r.error().describe()) << "\n";
    return 1;
  }
  std::cout << "valid\n";
  return 0;
}

void add_verify(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<VerifyOptions>();
  auto* cmd = app.add_subcommand("verify", "Verify an AgentProtocol 0.1 message's signature against from.agentId");
  cmd->add_option("input", opts->input, "message file, or - for standard input")->capture_default_str();
  cmd->footer("Exit status: 0 valid, 1 invalid (reason printed), 2 usage or unreadable input.");
  cmd->callback([opts, &ctx] { ctx.exit_code = run_verify(*opts); });
}

}  // namespace

AC_REGISTER_COMMAND(50, add_verify);

}  // namespace ac::cli

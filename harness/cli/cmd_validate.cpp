// agentconform validate --protocol P [--document NAME] [--lines] [FILE|-]
// Validates one JSON message, or JSON Lines (one message per line), against the protocol's
// schemas; prints "ok" or every error with its JSON Pointer, rule and spec section.
#include <iostream>
#include <string>

#include "harness/cli/commands.hpp"
#include "harness/cli/io.hpp"
#include "harness/protocols/profile.hpp"
#include "reports/text.hpp"

namespace ac::cli {
namespace {

struct ValidateOptions {
  std::string protocol;
  std::string document;
  std::string input = "-";
  bool lines = false;
  bool json_output = false;
};

// Validates one text; prints the verdict with `label` prefix; returns true when valid.
bool validate_one(const proto::Profile& profile, const ValidateOptions& o, std::string_view text, const std::string& label) {
  std::vector<proto::CodecError> errors;
  auto parsed = json::parse_strict(text);
  if (!parsed) {
    auto decoded = profile.decode(text);  // produces the protocol's code for malformed JSON
    errors.push_back(decoded.error());
  } else if (!o.document.empty()) {
    if (auto e = profile.check_document(o.document, *parsed)) errors.push_back(std::move(*e));
  } else {
    errors = profile.diagnose(*parsed);
  }
  if (o.json_output) {
    nlohmann::json out = {{"input", label}, {"valid", errors.empty()}, {"errors", nlohmann::json::array()}};
    for (const auto& e : errors) out["errors"].push_back(e.to_json());
    std::cout << out.dump() << "\n";
  } else if (errors.empty()) {
    std::cout << reports::terminal_safe(label.empty() ? "" : label + ": ") << "ok\n";
  } else {
    for (const auto& e : errors) std::cout << reports::terminal_safe((label.empty() ? "" : label + ": ") + e.describe()) << "\n";
  }
  return errors.empty();
}

int run_validate(const ValidateOptions& o) {
  const auto id = proto::parse_protocol(o.protocol);
  if (!id) {
    std::cerr << "validate: unknown protocol '" << o.protocol << "' (alp, agora, agentprotocol, a2acp, chopsticks)\n";
    return 2;
  }
  const proto::Profile& profile = proto::Catalog::builtin().profile(*id);
  if (!o.document.empty() && profile.document(o.document) == nullptr) {
    std::cerr << "validate: protocol " << o.protocol << " has no document '" << o.document << "'; known:";
    for (const auto& [name, spec] : profile.documents()) std::cerr << " " << name;
    std::cerr << "\n";
    return 2;
  }
  auto input = read_input(o.input);
  if (!input) return report_read_error("validate", input.error());
  const std::string& text = *input;

  // JSON Lines when asked, or when the whole input is several values one after another.
  bool as_lines = o.lines;
  if (!as_lines) {
    auto whole = json::parse_strict(text);
    as_lines = !whole && whole.error().rule == json::JsonRule::trailing_data && text.find('\n') != std::string::npos;
  }
  if (!as_lines) return validate_one(profile, o, text, "") ? 0 : 1;

  bool all_valid = true;
  std::size_t line_no = 0, start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) {
      all_valid &= validate_one(profile, o, line, "line " + std::to_string(line_no));
    }
    start = end + 1;
  }
  return all_valid ? 0 : 1;
}

void add_validate(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<ValidateOptions>();
  auto* cmd = app.add_subcommand("validate", "Validate a message (or JSON Lines of messages) against a protocol's schemas");
  cmd->add_option("--protocol,-p", opts->protocol, "alp | agora | agentprotocol | a2acp | chopsticks")->required();
  cmd->add_option("--document", opts->document,
                  "validate a standalone document instead of a message (e.g. capability, jwt_claims, register_request)");
  cmd->add_flag("--lines", opts->lines, "treat the input as JSON Lines even if it holds a single value");
  cmd->add_flag("--json", opts->json_output, "print one JSON verdict per message instead of text");
  cmd->add_option("input", opts->input, "file to read, or - for standard input")->capture_default_str();
  cmd->callback([opts, &ctx] { ctx.exit_code = run_validate(*opts); });
}

}  // namespace

AC_REGISTER_COMMAND(10, add_validate);

}  // namespace ac::cli

// agentconform sign --key KEYFILE [--set-agent-id] [--compact] [FILE|-]
// Signs an AgentProtocol 0.1 message (agentprotocol-0.1.md §Signature Verification): prints it
// with `signature` set to base64(Ed25519(RFC 8785 canonical form without `signature`)). Other
// values are unchanged; members are written in sorted order (the signature covers the
// canonical form, so order and whitespace do not matter). from.agentId must name the key,
// unless --set-agent-id sets it.
#include <iostream>
#include <string>

#include "harness/cli/commands.hpp"
#include "harness/cli/io.hpp"
#include "harness/crypto/pem.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"
#include "reports/text.hpp"

namespace ac::cli {
namespace {

namespace ap = proto::agentprotocol;

struct SignOptions {
  std::string key_file;
  std::string input = "-";
  bool set_agent_id = false;
  bool compact = false;
};

int run_sign(const SignOptions& o) {
  auto pem = read_input(o.key_file, crypto::kMaxPemBytes);
  if (!pem) {
    std::cerr << "sign: --key: " << pem.error().message << "\n";
    return 2;  // the key is configuration, not the input being checked
  }
  auto key = crypto::Ed25519PrivateKey::from_pem(*pem);
  if (!key) {
    std::cerr << "sign: " << o.key_file << ": " << key.error().describe() << "\n";
    return 2;
  }
  auto text = read_input(o.input);
  if (!text) return report_read_error("sign", text.error());
  auto message = json::parse_strict(*text);
  if (!message) {
    std::cerr << "sign: the input is not strict JSON: " << reports::terminal_safe(message.error().describe()) << "\n";
    return 1;
  }
  if (!message->is_object()) {
    std::cerr << "sign: an AgentProtocol message is a JSON object\n";
    return 1;
  }
  const std::string own_id = ap::agent_id(key->public_key());
  const json::Json* from = message->contains("from") ? &(*message)["from"] : nullptr;
  const json::Json* id = from != nullptr && from->is_object() && from->contains("agentId") ? &(*from)["agentId"] : nullptr;
  if (id == nullptr || *id != own_id) {
    if (!o.set_agent_id) {
      std::cerr << "sign: from.agentId " << (id == nullptr ? std::string("is absent") : "is " + reports::terminal_safe(id->dump()) + ", not this key")
                << "; the key's agentId is " << own_id << " (use --set-agent-id to set it)\n";
      return 1;
    }
    *message = ap::with_agent_id(std::move(*message), key->public_key());
  }
  auto signed_message = ap::sign(std::move(*message), *key);
  if (!signed_message) {
    std::cerr << "sign: " << reports::terminal_safe(signed_message.error().describe()) << "\n";
    return 1;
  }
  std::cout << signed_message->dump(o.compact ? -1 : 2) << "\n";
  return 0;
}

void add_sign(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<SignOptions>();
  auto* cmd = app.add_subcommand("sign", "Sign an AgentProtocol 0.1 message with an Ed25519 key (prints it with `signature` set)");
  cmd->add_option("--key,-k", opts->key_file, "Ed25519 private key, PKCS#8 PEM (see keygen)")->required();
  cmd->add_flag("--set-agent-id", opts->set_agent_id, "set from.agentId to the key's public key instead of refusing a mismatch");
  cmd->add_flag("--compact", opts->compact, "print the message on one line");
  cmd->add_option("input", opts->input, "message file, or - for standard input")->capture_default_str();
  cmd->callback([opts, &ctx] { ctx.exit_code = run_sign(*opts); });
}

}  // namespace

AC_REGISTER_COMMAND(40, add_sign);

}  // namespace ac::cli

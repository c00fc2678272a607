// agentconform jwt issue|verify: A2ACP 1.0 authentication tokens (a2acp-1.0.md §Authentication).
//
//   jwt issue --alg HS256|RS256|EdDSA (--secret S | --secret-file F | --key PRIVATE.pem)
//             --sub ID --aud ID --ttl SECONDS [--iss ISS] [--capabilities a,b] [--domain D] [--now T]
//   jwt verify (--secret S | --secret-file F | --key PUBLIC.pem) --audience ID [--issuer ISS]
//              [--capability C ...] [--leeway S] [--now T] [TOKEN|-]
//
// issue prints the token; verify prints the claims as JSON (exit 0) or the failed validation
// rule (exit 1). The verifier's algorithm comes from the key, never from the token's header.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "harness/cli/commands.hpp"
#include "harness/cli/io.hpp"
#include "harness/crypto/pem.hpp"
#include "harness/protocols/a2acp/token.hpp"
#include "reports/text.hpp"

namespace ac::cli {
namespace {

namespace jwt = crypto::jwt;
namespace a2acp = proto::a2acp;

struct KeyOptions {
  std::string secret, secret_file, key_file;
};

struct IssueOptions {
  KeyOptions key;
  std::string alg, sub, aud, iss = std::string(a2acp::kDefaultIssuer), domain = "a_domain";
  std::int64_t ttl = 0;
  std::vector<std::string> capabilities;
  std::optional<std::int64_t> now;
};

struct JwtVerifyOptions {
  KeyOptions key;
  std::string audience, issuer = std::string(a2acp::kDefaultIssuer), token = "-";
  std::vector<std::string> capabilities;
  std::int64_t leeway = 0;
  std::optional<std::int64_t> now;
};

// The key from exactly one of --secret, --secret-file, --key; `verifying` accepts public keys.
Expected<jwt::Key, std::string> load_key(const KeyOptions& o, bool verifying) {
  const int given = !o.secret.empty() + !o.secret_file.empty() + !o.key_file.empty();
  if (given != 1) return unexpected(std::string("give exactly one of --secret, --secret-file, --key"));
  Expected<jwt::Key, jwt::Error> key = unexpected(jwt::Error{});
  if (!o.key_file.empty()) {
    auto pem = read_input(o.key_file, crypto::kMaxPemBytes);
    if (!pem) return unexpected(pem.error().message);
    key = verifying ? jwt::Key::from_pem(*pem) : jwt::Key::from_private_pem(*pem);
    if (!key) return unexpected(o.key_file + ": " + key.error().describe());
    return std::move(*key);
  }
  std::string secret = o.secret;
  if (!o.secret_file.empty()) {
    auto s = read_input(o.secret_file, 64 * 1024);
    if (!s) return unexpected(s.error().message);
    secret = std::move(*s);
    if (!secret.empty() && secret.back() == '\n') secret.pop_back();  // `echo ... > file`
    if (!secret.empty() && secret.back() == '\r') secret.pop_back();
  }
  key = jwt::Key::hmac(std::move(secret));
  if (!key) return unexpected(key.error().describe());
  return std::move(*key);
}

std::vector<std::string> split_commas(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::size_t start = 0;
    while (start <= item.size()) {
      const auto comma = std::min(item.find(',', start), item.size());
      if (comma > start) out.push_back(item.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

int run_issue(const IssueOptions& o) {
  const auto alg = jwt::parse_alg(o.alg);
  if (!alg) {
    std::cerr << "jwt issue: --alg must be HS256, RS256 or EdDSA (case-sensitive), got '" << o.alg << "'\n";
    return 2;
  }
  auto key = load_key(o.key, false);
  if (!key) {
    std::cerr << "jwt issue: " << key.error() << "\n";
    return 2;
  }
  if (key->alg() != *alg) {
    std::cerr << "jwt issue: --alg " << o.alg << " but the key is for " << jwt::alg_name(key->alg()) << "\n";
    return 2;
  }
  a2acp::IssueParams p;
  p.sub = o.sub;
  p.aud = o.aud;
  p.ttl = o.ttl;
  p.iss = o.iss;
  p.domain = o.domain;
  p.capabilities = split_commas(o.capabilities);
  if (o.now) p.clock = jwt::fixed_clock(*o.now);
  auto token = a2acp::issue(p, *key);
  if (!token) {
    std::cerr << "jwt issue: " << token.error().message << "\n";
    return 2;
  }
  std::cout << *token << "\n";
  return 0;
}

int run_jwt_verify(const JwtVerifyOptions& o) {
  auto key = load_key(o.key, true);
  if (!key) {
    std::cerr << "jwt verify: " << key.error() << "\n";
    return 2;
  }
  std::string token = o.token;
  if (token == "-") {
    auto in = read_input("-", jwt::kMaxTokenBytes + 2, "a token");
    if (!in) return report_read_error("jwt verify", in.error());
    token = std::move(*in);
    // One token, optionally followed by a line end (what `jwt issue | jwt verify` gives).
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  }
  a2acp::Expectations e;
  e.audience = o.audience;
  e.issuer = o.issuer;
  e.required_capabilities = split_commas(o.capabilities);
  e.leeway = o.leeway;
  if (o.now) e.clock = jwt::fixed_clock(*o.now);
  auto claims = a2acp::verify(token, *key, e);
  if (!claims) {
    std::cout << "invalid: " << a2acp::TokenError::a2acp_code() << " " << reports::terminal_safe(claims.error().describe()) << "\n";
    return 1;
  }
  // Claims are the token's text: escaped, so a claim cannot print a forged line (C1 controls,
  // which JSON leaves unescaped, included).
  std::cout << reports::terminal_safe(claims->json.dump(2), /*keep_newlines=*/true) << "\n";
  return 0;
}

void add_key_options(CLI::App* cmd, KeyOptions& k, const char* key_help) {
  auto* secret = cmd->add_option("--secret", k.secret, "HS256 shared secret (at least 32 bytes, RFC 7518 §3.2)");
  auto* secret_file = cmd->add_option("--secret-file", k.secret_file, "file holding the HS256 secret (one trailing newline is ignored)");
  auto* key = cmd->add_option("--key,-k", k.key_file, key_help);
  secret->excludes(secret_file)->excludes(key);
  secret_file->excludes(key);
}

void add_jwt(CLI::App& app, Context& ctx) {
  auto* jwt_cmd = app.add_subcommand("jwt", "Issue and verify A2ACP 1.0 JWT authentication tokens (HS256, RS256, EdDSA)");
  jwt_cmd->require_subcommand(1);

  auto io = std::make_shared<IssueOptions>();
  auto* issue = jwt_cmd->add_subcommand("issue", "Issue a token with the A2ACP claims (sub, iss, aud, exp, iat, capabilities, domain)");
  issue->add_option("--alg", io->alg, "HS256 | RS256 | EdDSA")->required();
  add_key_options(issue, io->key, "private key PEM (RSA >= 2048 bits for RS256, Ed25519 for EdDSA)");
  issue->add_option("--sub", io->sub, "source agent id")->required();
  issue->add_option("--aud", io->aud, "target agent id")->required();
  issue->add_option("--ttl", io->ttl, "lifetime in seconds (exp = iat + ttl), 1 to 315360000 (10 years)")
      ->required()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{10LL * 365 * 24 * 3600}));
  issue->add_option("--iss", io->iss, "issuer")->capture_default_str();
  issue->add_option("--capabilities", io->capabilities, "granted capabilities, comma-separated")
      ->delimiter(',')
      ->allow_extra_args(false);
  issue->add_option("--domain", io->domain, "the source agent's domain")->capture_default_str();
  issue->add_option("--now", io->now, "issue as if the time were this Unix timestamp");
  issue->callback([io, &ctx] { ctx.exit_code = run_issue(*io); });

  auto vo = std::make_shared<JwtVerifyOptions>();
  auto* verify = jwt_cmd->add_subcommand("verify", "Verify a token with the five A2ACP validation rules; print its claims");
  add_key_options(verify, vo->key, "public key PEM (SubjectPublicKeyInfo; a private key PEM also works)");
  verify->add_option("--audience", vo->audience, "the target agent id the token must be for (rule 3)")->required();
  verify->add_option("--issuer", vo->issuer, "expected issuer (rule 5)")->capture_default_str();
  verify->add_option("--capability", vo->capabilities, "a capability the token must grant (rule 4); repeatable")
      ->delimiter(',')
      ->allow_extra_args(false);
  verify->add_option("--leeway", vo->leeway, "seconds of clock tolerance for exp/iat/nbf")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{24 * 3600}))
      ->capture_default_str();
  verify->add_option("--now", vo->now, "verify as if the time were this Unix timestamp");
  verify->add_option("token", vo->token, "the token, or - to read it from standard input")->capture_default_str();
  verify->footer("Exit status: 0 valid (claims printed), 1 invalid (failed rule printed), 2 usage error.");
  verify->callback([vo, &ctx] { ctx.exit_code = run_jwt_verify(*vo); });
}

}  // namespace

AC_REGISTER_COMMAND(60, add_jwt);

}  // namespace ac::cli

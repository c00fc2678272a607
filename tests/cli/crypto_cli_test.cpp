// The crypto commands as a user runs them (the built binary, AC_CLI): keygen -> sign -> verify
// -> tamper -> verify fails; jwt issue -> verify -> wrong audience / capability / expiry /
// algorithm confusion; usage errors exit 2; --help everywhere.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

struct CliResult {
  int code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

class CryptoCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ac-crypto-cli-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `agentconform ARGS` (arguments are shell-quoted) with `input` on standard input.
  CliResult run(const std::vector<std::string>& args, const std::string& input = "") {
    const fs::path in = dir_ / "stdin", out = dir_ / "stdout", err = dir_ / "stderr";
    std::ofstream(in, std::ios::binary) << input;
    std::string cmd = quote(AC_CLI);
    for (const auto& a : args) cmd += " " + quote(a);
    cmd += " <" + quote(in) + " >" + quote(out) + " 2>" + quote(err);
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name, std::ios::binary) << text; }

  fs::path dir_;
};

const char* kMessage = R"({"protocol":"agentprotocol/0.1","id":"550e8400-e29b-41d4-a716-446655440000",
  "timestamp":"2026-02-01T15:08:00Z","from":{"name":"Freya","capabilities":["agentprotocol:core"]},
  "to":{"agentId":"ABCdef123...","broadcast":false},"type":"hello",
  "payload":{"version":"0.1","features":["signed-messages","streaming"]}})";

TEST_F(CryptoCli, KeygenSignVerifyTamper) {
  auto first = run({"keygen", "--out", path("agent")});
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_EQ(run({"keygen", "--out", path("agent")}).code, 2);  // never overwrites silently
  auto kg = run({"keygen", "--out", path("agent"), "--force"});
  ASSERT_EQ(kg.code, 0) << kg.err;
  const std::string agent_id = kg.out.substr(0, kg.out.find('\n'));
  EXPECT_NE(kg.out, first.out);
  EXPECT_EQ(agent_id.size(), 44u) << kg.out;  // base64 of 32 bytes
  struct stat st{};
  ASSERT_EQ(::stat(path("agent.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(slurp(path("agent.key")).rfind("-----BEGIN PRIVATE KEY-----", 0), 0u);
  EXPECT_EQ(slurp(path("agent.pub")).rfind("-----BEGIN PUBLIC KEY-----", 0), 0u);

  // No agentId in the message: refused unless --set-agent-id.
  write("msg.json", kMessage);
  auto refused = run({"sign", "--key", path("agent.key"), path("msg.json")});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("--set-agent-id"), std::string::npos) << refused.err;
  EXPECT_TRUE(refused.out.empty());

  auto sig = run({"sign", "--key", path("agent.key"), "--set-agent-id", "-"}, kMessage);
  ASSERT_EQ(sig.code, 0) << sig.err;
  const auto signed_msg = nlohmann::json::parse(sig.out);
  auto original = nlohmann::json::parse(kMessage);
  EXPECT_EQ(signed_msg["from"]["agentId"], agent_id);  // what keygen printed
  nlohmann::json without = signed_msg;
  without.erase("signature");
  original["from"]["agentId"] = signed_msg["from"]["agentId"];
  EXPECT_EQ(without, original);  // other fields untouched
  write("signed.json", sig.out);

  auto ok = run({"verify", path("signed.json")});
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out, "valid\n");
  EXPECT_EQ(run({"verify"}, sig.out).code, 0);          // standard input
  EXPECT_EQ(run({"verify"}, signed_msg.dump()).code, 0);  // whitespace does not matter

  // Signing an already signed message with its own key works without --set-agent-id.
  auto resign = run({"sign", "--key", path("agent.key"), "--compact", path("signed.json")});
  EXPECT_EQ(resign.code, 0) << resign.err;
  EXPECT_EQ(nlohmann::json::parse(resign.out), signed_msg);

  // Tamper: one payload value.
  nlohmann::json tampered = signed_msg;
  tampered["payload"]["version"] = "0.2";
  auto bad = run({"verify"}, tampered.dump());
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("signature-mismatch"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("INVALID_SIGNATURE"), std::string::npos) << bad.out;

  // Tamper: the signature itself, and duplicate keys.
  tampered = signed_msg;
  tampered["signature"] = tampered["signature"].get<std::string>().substr(4);
  auto short_sig = run({"verify"}, tampered.dump());
  EXPECT_EQ(short_sig.code, 1);
  EXPECT_NE(short_sig.out.find("signature-wrong-length"), std::string::npos) << short_sig.out;
  std::string dup = signed_msg.dump();
  dup.insert(dup.size() - 1, R"(,"type":"request")");
  auto d = run({"verify"}, dup);
  EXPECT_EQ(d.code, 1);
  EXPECT_NE(d.out.find("duplicate-key"), std::string::npos) << d.out;

  // A second key cannot sign for the first agent.
  ASSERT_EQ(run({"keygen", "--out", path("other")}).code, 0);
  auto mismatch = run({"sign", "--key", path("other.key"), path("signed.json")});
  EXPECT_EQ(mismatch.code, 1);
  EXPECT_NE(mismatch.err.find("not this key"), std::string::npos) << mismatch.err;
}

TEST_F(CryptoCli, SignAndVerifyUsageErrors) {
  EXPECT_EQ(run({"sign", path("msg.json")}).code, 2);                          // --key missing
  EXPECT_EQ(run({"sign", "--key", path("missing.key")}, kMessage).code, 2);   // unreadable key
  write("not-a-key", "hello");
  EXPECT_EQ(run({"sign", "--key", path("not-a-key")}, kMessage).code, 2);
  EXPECT_EQ(run({"verify", path("missing.json")}).code, 2);
  EXPECT_EQ(run({"verify", "--bogus"}).code, 2);
  ASSERT_EQ(run({"keygen", "--out", path("k")}).code, 0);
  auto notjson = run({"sign", "--key", path("k.key")}, "{\"a\":1,\"a\":2}");
  EXPECT_EQ(notjson.code, 1);
  EXPECT_NE(notjson.err.find("duplicate-key"), std::string::npos) << notjson.err;
}

TEST_F(CryptoCli, HelpOnEveryCommand) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"keygen", "--help"}, {"sign", "--help"}, {"verify", "--help"}, {"jwt", "--help"}, {"jwt", "issue", "--help"}, {"jwt", "verify", "--help"}}) {
    auto r = run(args);
    EXPECT_EQ(r.code, 0) << args[0];
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << args[0] << r.out;
  }
}

TEST_F(CryptoCli, JwtIssueVerifyWrongAudience) {
  const std::string secret = "agentconform-test-secret-0123456789abcdef";
  auto issued = run({"jwt", "issue", "--alg", "HS256", "--secret", secret, "--sub", "sdlc-test-agent", "--aud",
                     "dataset-provisioning-agent", "--ttl", "600", "--capabilities", "read:datasets,write:test_scenarios",
                     "--domain", "a_domain", "--now", "1706371200"});
  ASSERT_EQ(issued.code, 0) << issued.err;
  const std::string token = issued.out.substr(0, issued.out.find('\n'));
  EXPECT_EQ(std::count(token.begin(), token.end(), '.'), 2);

  auto ok = run({"jwt", "verify", "--secret", secret, "--audience", "dataset-provisioning-agent", "--capability", "read:datasets",
                 "--now", "1706371500", token});
  ASSERT_EQ(ok.code, 0) << ok.out << ok.err;
  const auto claims = nlohmann::json::parse(ok.out);
  EXPECT_EQ(claims, nlohmann::json::parse(R"({"sub":"sdlc-test-agent","iss":"a_domain-auth-service","aud":"dataset-provisioning-agent",
      "exp":1706371800,"iat":1706371200,"capabilities":["read:datasets","write:test_scenarios"],"domain":"a_domain"})"));
  // From standard input, as `jwt issue | jwt verify -` gives it.
  EXPECT_EQ(run({"jwt", "verify", "--secret", secret, "--audience", "dataset-provisioning-agent", "--now", "1706371500", "-"}, issued.out).code, 0);

  struct Bad {
    std::vector<std::string> extra;
    const char* rule;
  };
  for (const auto& b : std::vector<Bad>{
           {{"--audience", "billing-agent", "--now", "1706371500"}, "audience [rule 3]"},
           {{"--audience", "dataset-provisioning-agent", "--now", "1706371800"}, "expired [rule 2]"},
           {{"--audience", "dataset-provisioning-agent", "--now", "1706371500", "--capability", "delete:datasets"}, "capabilities [rule 4]"},
           {{"--audience", "dataset-provisioning-agent", "--now", "1706371500", "--issuer", "other-auth"}, "issuer [rule 5]"},
           {{"--audience", "dataset-provisioning-agent", "--now", "1706371100"}, "not-yet-valid"},
       }) {
    std::vector<std::string> args = {"jwt", "verify", "--secret", secret};
    args.insert(args.end(), b.extra.begin(), b.extra.end());
    args.push_back(token);
    auto r = run(args);
    EXPECT_EQ(r.code, 1) << b.rule;
    EXPECT_NE(r.out.find(b.rule), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("AUTH_FAILED"), std::string::npos) << r.out;
  }
  auto wrong_secret = run({"jwt", "verify", "--secret", secret + "!", "--audience", "dataset-provisioning-agent", "--now", "1706371500", token});
  EXPECT_EQ(wrong_secret.code, 1);
  EXPECT_NE(wrong_secret.out.find("bad-signature"), std::string::npos) << wrong_secret.out;
}

TEST_F(CryptoCli, JwtEdDsaAndAlgorithmConfusion) {
  ASSERT_EQ(run({"keygen", "--out", path("auth")}).code, 0);
  auto issued = run({"jwt", "issue", "--alg", "EdDSA", "--key", path("auth.key"), "--sub", "a", "--aud", "b", "--ttl", "60"});
  ASSERT_EQ(issued.code, 0) << issued.err;
  const std::string token = issued.out.substr(0, issued.out.find('\n'));
  EXPECT_EQ(run({"jwt", "verify", "--key", path("auth.pub"), "--audience", "b", token}).code, 0);
  // The public key's PEM text offered as an HS256 secret is refused outright.
  auto confused = run({"jwt", "verify", "--secret-file", path("auth.pub"), "--audience", "b", token});
  EXPECT_EQ(confused.code, 2);
  EXPECT_NE(confused.err.find("confusion"), std::string::npos) << confused.err;
  // An HS256 token presented to an EdDSA key: the key decides the algorithm.
  auto hs = run({"jwt", "issue", "--alg", "HS256", "--secret", std::string(40, 's'), "--sub", "a", "--aud", "b", "--ttl", "60"});
  ASSERT_EQ(hs.code, 0);
  auto r = run({"jwt", "verify", "--key", path("auth.pub"), "--audience", "b", hs.out.substr(0, hs.out.find('\n'))});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("alg-not-allowed"), std::string::npos) << r.out;
}

TEST_F(CryptoCli, JwtUsageErrors) {
  const std::string s(40, 's');
  EXPECT_EQ(run({"jwt"}).code, 2);
  EXPECT_EQ(run({"jwt", "issue", "--alg", "none", "--secret", s, "--sub", "a", "--aud", "b", "--ttl", "5"}).code, 2);
  EXPECT_EQ(run({"jwt", "issue", "--alg", "HS256", "--secret", s, "--sub", "a", "--aud", "b"}).code, 2);             // --ttl
  EXPECT_EQ(run({"jwt", "issue", "--alg", "HS256", "--secret", s, "--sub", "a", "--aud", "b", "--ttl", "0"}).code, 2);
  EXPECT_EQ(run({"jwt", "issue", "--alg", "HS256", "--secret", "short", "--sub", "a", "--aud", "b", "--ttl", "5"}).code, 2);
  EXPECT_EQ(run({"jwt", "issue", "--alg", "HS256", "--sub", "a", "--aud", "b", "--ttl", "5"}).code, 2);  // no key
  EXPECT_EQ(run({"jwt", "verify", "--secret", s, "tok"}).code, 2);                                       // --audience
  ASSERT_EQ(run({"keygen", "--out", path("k")}).code, 0);
  EXPECT_EQ(run({"jwt", "issue", "--alg", "RS256", "--key", path("k.key"), "--sub", "a", "--aud", "b", "--ttl", "5"}).code, 2);
  EXPECT_EQ(run({"jwt", "verify", "--secret", s, "--key", path("k.pub"), "--audience", "b", "tok"}).code, 2);
}

}  // namespace

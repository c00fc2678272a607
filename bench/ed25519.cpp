// Ed25519 verification cost: the project's API (libsodium first, OpenSSL's answer) against raw
// OpenSSL EVP in the same binary and run (issue 2 §6: the API must reach >= 90% of raw EVP
// throughput), plus the AgentProtocol
// path (strict parse + RFC 8785 canonicalization + verify) on a typical signed message, and
// JWT verification for the three algorithms.
//
//   build/bin/bench_ed25519 --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <openssl/evp.h>

#include "harness/crypto/ed25519.hpp"
#include "harness/crypto/jwt.hpp"
#include "harness/protocols/a2acp/token.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"

namespace {

using ac::crypto::Ed25519PrivateKey;
using ac::crypto::Ed25519PublicKey;

const Ed25519PrivateKey& key() {
  static const auto k = [] {
    auto r = Ed25519PrivateKey::from_seed(std::string(32, '\x07'));
    if (!r) std::abort();
    return *r;
  }();
  return k;
}

// ~500 bytes of message text.
const std::string& message() {
  static const std::string m = [] {
    std::string s;
    while (s.size() < 500) s += "agentconform ed25519 benchmark message; ";
    return s.substr(0, 500);
  }();
  return m;
}

const std::string& signature() {
  static const std::string s = *key().sign(message());
  return s;
}

const unsigned char* u8(const std::string& s) { return reinterpret_cast<const unsigned char*>(s.data()); }

// Raw EVP as an application would write it: one EVP_PKEY kept, a fresh EVP_MD_CTX per call.
void BM_RawEvp_Verify(benchmark::State& state) {
  const std::string& raw = key().public_key().raw();
  EVP_PKEY* pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, u8(raw), raw.size());
  for (auto _ : state) {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    const int ok = EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, pkey) == 1 &&
                   EVP_DigestVerify(ctx, u8(signature()), signature().size(), u8(message()), message().size()) == 1;
    EVP_MD_CTX_free(ctx);
    if (!ok) state.SkipWithError("raw verify failed");
    benchmark::DoNotOptimize(ok);
  }
  EVP_PKEY_free(pkey);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RawEvp_Verify);

// Raw EVP starting from the 32 raw key bytes on every call (what a message-by-message verifier
// without a key cache does); no point validation.
void BM_RawEvp_VerifyFromRawKey(benchmark::State& state) {
  const std::string& raw = key().public_key().raw();
  for (auto _ : state) {
    EVP_PKEY* pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, u8(raw), raw.size());
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    const int ok = EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, pkey) == 1 &&
                   EVP_DigestVerify(ctx, u8(signature()), signature().size(), u8(message()), message().size()) == 1;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(pkey);
    if (!ok) state.SkipWithError("raw verify failed");
    benchmark::DoNotOptimize(ok);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RawEvp_VerifyFromRawKey);

// The project's API with a key object kept (the comparison to BM_RawEvp_Verify).
void BM_Api_Verify(benchmark::State& state) {
  const Ed25519PublicKey pub = key().public_key();
  for (auto _ : state) {
    const bool ok = pub.verify(message(), signature());
    if (!ok) state.SkipWithError("api verify failed");
    benchmark::DoNotOptimize(ok);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Api_Verify);

// The project's API from the raw key bytes each call, through the validated-key cache (the
// comparison to BM_RawEvp_VerifyFromRawKey; this is what AgentProtocol verification does).
void BM_Api_VerifyFromRawKey(benchmark::State& state) {
  const std::string raw = key().public_key().raw();
  for (auto _ : state) {
    auto pub = ac::crypto::cached_public_key(raw);
    const bool ok = pub && pub->verify(message(), signature());
    if (!ok) state.SkipWithError("api verify failed");
    benchmark::DoNotOptimize(ok);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Api_VerifyFromRawKey);

// Decoding + validating a public key without the cache (RFC 8032 §5.1.3 check with BIGNUMs):
// the cost the cache saves per message.
void BM_Api_PublicKeyFromRaw(benchmark::State& state) {
  const std::string raw = key().public_key().raw();
  for (auto _ : state) {
    auto pub = Ed25519PublicKey::from_raw(raw);
    benchmark::DoNotOptimize(pub);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Api_PublicKeyFromRaw);

// The API signs and verifies through libsodium (harness/crypto/ed25519.cpp); the _OpenSsl
// variants are the same calls through OpenSSL alone, what the API did before 2026-11-26.
void BM_Api_VerifyOpenSsl(benchmark::State& state) {
  const Ed25519PublicKey pub = key().public_key();
  for (auto _ : state) {
    const bool ok = pub.verify_openssl(message(), signature());
    if (!ok) state.SkipWithError("openssl verify failed");
    benchmark::DoNotOptimize(ok);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Api_VerifyOpenSsl);

void BM_Api_Sign(benchmark::State& state) {
  for (auto _ : state) {
    auto sig = key().sign(message());
    benchmark::DoNotOptimize(sig);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Api_Sign);

void BM_Api_SignOpenSsl(benchmark::State& state) {
  for (auto _ : state) {
    auto sig = key().sign_openssl(message());
    benchmark::DoNotOptimize(sig);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Api_SignOpenSsl);

// ---- AgentProtocol ----

const std::string& signed_text() {
  static const std::string t = [] {
    auto m = ac::json::Json::parse(R"({
      "protocol": "agentprotocol/0.1", "id": "550e8400-e29b-41d4-a716-446655440000",
      "timestamp": "2026-02-01T15:08:00Z",
      "from": {"name": "Freya", "capabilities": ["agentprotocol:core", "agentprotocol:tasks", "agentprotocol:proofs"]},
      "to": {"agentId": "ABCdef123...", "broadcast": false},
      "type": "request",
      "payload": {"action": "code-review", "correlationId": "req-123", "timeout": 30000,
                  "params": {"code": "function add(a, b) { return a + b; }", "language": "javascript"}}})");
    auto s = ac::proto::agentprotocol::sign(ac::proto::agentprotocol::with_agent_id(m, key().public_key()), key());
    if (!s) std::abort();
    return s->dump();
  }();
  return t;
}

void BM_AgentProtocol_VerifyText(benchmark::State& state) {
  const std::string& text = signed_text();
  for (auto _ : state) {
    auto r = ac::proto::agentprotocol::verify_text(text);
    if (!r) state.SkipWithError("verify failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["message_bytes"] = static_cast<double>(text.size());
}
BENCHMARK(BM_AgentProtocol_VerifyText);

void BM_AgentProtocol_VerifyParsed(benchmark::State& state) {
  const auto message = *ac::json::parse_strict(signed_text());
  for (auto _ : state) {
    auto r = ac::proto::agentprotocol::verify(message);
    if (!r) state.SkipWithError("verify failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AgentProtocol_VerifyParsed);

void BM_AgentProtocol_SignatureBase(benchmark::State& state) {
  const auto message = *ac::json::parse_strict(signed_text());
  for (auto _ : state) {
    auto r = ac::proto::agentprotocol::signature_base(message);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AgentProtocol_SignatureBase);

// ---- JWT (A2ACP rules) ----

void BM_Jwt_Verify(benchmark::State& state, ac::crypto::jwt::Alg alg) {
  namespace jwt = ac::crypto::jwt;
  static const std::string rsa_pem = [] {
    std::ifstream in(std::string(AC_SOURCE_DIR) + "/fixtures/vectors/jwt/rsa2048.key");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  ac::Expected<jwt::Key, jwt::Error> signer = ac::unexpected(jwt::Error{});
  if (alg == jwt::Alg::HS256) signer = jwt::Key::hmac(std::string(32, 'k'));
  else if (alg == jwt::Alg::RS256) signer = jwt::Key::from_private_pem(rsa_pem);
  else signer = jwt::Key::ed25519(key());
  ac::proto::a2acp::IssueParams p;
  p.sub = "sdlc-test-agent";
  p.aud = "dataset-provisioning-agent";
  p.domain = "a_domain";
  p.capabilities = {"read:datasets", "write:test_scenarios"};
  p.clock = jwt::fixed_clock(1706371200);
  if (!signer) {
    state.SkipWithError(signer.error().describe().c_str());
    return;
  }
  const std::string token = *ac::proto::a2acp::issue(p, *signer);
  ac::proto::a2acp::Expectations e;
  e.audience = p.aud;
  e.required_capabilities = {"read:datasets"};
  e.clock = jwt::fixed_clock(1706371500);
  for (auto _ : state) {
    auto r = ac::proto::a2acp::verify(token, *signer, e);
    if (!r) state.SkipWithError("jwt verify failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_Jwt_Verify, HS256, ac::crypto::jwt::Alg::HS256);
BENCHMARK_CAPTURE(BM_Jwt_Verify, RS256, ac::crypto::jwt::Alg::RS256);
BENCHMARK_CAPTURE(BM_Jwt_Verify, EdDSA, ac::crypto::jwt::Alg::EdDSA);

}  // namespace

// Strict JWT issue/verify for HS256, RS256 and EdDSA on OpenSSL (see jwt.hpp).
#include "harness/crypto/jwt.hpp"

#include <chrono>
#include <cmath>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/hmac.h>

#include "harness/crypto/base64.hpp"
#include "harness/crypto/pem.hpp"

namespace ac::crypto::jwt {
namespace {

Unexpected<Error> fail(Errc code, std::string message) {
  ERR_clear_error();
  return unexpected(Error{code, std::move(message)});
}

const unsigned char* bytes_of(std::string_view s) {
  static const unsigned char empty = 0;
  return s.empty() ? &empty : reinterpret_cast<const unsigned char*>(s.data());
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string hmac_sha256(std::string_view secret, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), bytes_of(secret), static_cast<int>(secret.size()), bytes_of(data), data.size(), out, &len) == nullptr) {
    ERR_clear_error();
    return {};
  }
  return std::string(reinterpret_cast<const char*>(out), len);
}

// Claims must be serializable exactly: no NaN/Infinity (nlohmann would write null).
bool all_finite(const Json& v, int depth = 0) {
  if (depth > 128) return false;
  if (v.is_number_float()) return std::isfinite(v.get<double>());
  if (v.is_structured()) {
    for (const auto& e : v) {
      if (!all_finite(e, depth + 1)) return false;
    }
  }
  return true;
}

const char* header_for(Alg alg) {
  switch (alg) {
    case Alg::HS256: return R"({"alg":"HS256","typ":"JWT"})";
    case Alg::RS256: return R"({"alg":"RS256","typ":"JWT"})";
    case Alg::EdDSA: return R"({"alg":"EdDSA","typ":"JWT"})";
  }
  return "";
}

// Reads a NumericDate claim (RFC 7519 §2) when present: a JSON number.
Expected<std::optional<double>, Error> numeric_date(const Json& claims, const char* name) {
  const auto it = claims.find(name);
  if (it == claims.end()) return std::optional<double>();
  if (!it->is_number()) return fail(Errc::bad_claims, std::string("'") + name + "' must be a NumericDate (a JSON number), RFC 7519 §4.1");
  return std::optional<double>(it->get<double>());
}

std::string fmt_time(double t) {
  if (std::floor(t) == t && std::fabs(t) < 9e15) return std::to_string(static_cast<long long>(t));
  return std::to_string(t);
}

// Header checks; returns the algorithm the header names.
Expected<Alg, Error> check_header(const Json& header, const Key& key) {
  if (!header.is_object()) return fail(Errc::bad_header, "the JOSE header must be a JSON object (RFC 7515 §4)");
  const auto alg_it = header.find("alg");
  if (alg_it == header.end()) return fail(Errc::bad_header, "the JOSE header has no 'alg' (RFC 7515 §4.1.1)");
  if (!alg_it->is_string()) return fail(Errc::bad_header, "'alg' must be a string (RFC 7515 §4.1.1)");
  const auto& alg_text = alg_it->get_ref<const std::string&>();
  if (iequals(alg_text, "none")) {
    return fail(Errc::alg_none, "alg '" + alg_text + "': unsecured JWTs (RFC 7519 §6) are never accepted");
  }
  const auto alg = parse_alg(alg_text);
  if (!alg) {
    return fail(Errc::alg_unsupported, "alg '" + alg_text + "' is not supported (HS256, RS256, EdDSA; names are case-sensitive)");
  }
  if (const auto typ = header.find("typ"); typ != header.end()) {
    if (!typ->is_string() || !iequals(typ->get_ref<const std::string&>(), "JWT")) {
      return fail(Errc::bad_header, "'typ' must be \"JWT\" when present (RFC 7519 §5.1)");
    }
  }
  if (header.contains("crit")) {
    return fail(Errc::bad_header, "'crit' names extensions this verifier does not understand (RFC 7515 §4.1.11)");
  }
  if (*alg != key.alg()) {
    return fail(Errc::alg_not_allowed, "alg '" + alg_text + "' but the key is for " + std::string(alg_name(key.alg())) +
                                           ": the verifier takes the algorithm from the key, never from the header");
  }
  return *alg;
}

// Registered claims with a defined type (RFC 7519 §4.1).
std::optional<Error> check_claim_types(const Json& claims) {
  for (const char* name : {"iss", "sub", "jti"}) {
    if (const auto it = claims.find(name); it != claims.end() && !it->is_string()) {
      return Error{Errc::bad_claims, std::string("'") + name + "' must be a string (RFC 7519 §4.1)"};
    }
  }
  if (const auto it = claims.find("aud"); it != claims.end()) {
    bool ok = it->is_string();
    if (it->is_array()) {
      ok = true;
      for (const auto& a : *it) ok = ok && a.is_string();
    }
    if (!ok) return Error{Errc::bad_claims, "'aud' must be a string or an array of strings (RFC 7519 §4.1.3)"};
  }
  return std::nullopt;
}

}  // namespace

std::string_view alg_name(Alg alg) {
  switch (alg) {
    case Alg::HS256: return "HS256";
    case Alg::RS256: return "RS256";
    case Alg::EdDSA: return "EdDSA";
  }
  return "?";
}

std::optional<Alg> parse_alg(std::string_view name) {
  if (name == "HS256") return Alg::HS256;
  if (name == "RS256") return Alg::RS256;
  if (name == "EdDSA") return Alg::EdDSA;
  return std::nullopt;
}

std::string_view errc_name(Errc code) {
  switch (code) {
    case Errc::malformed: return "malformed";
    case Errc::bad_base64: return "bad-base64";
    case Errc::bad_header: return "bad-header";
    case Errc::alg_none: return "alg-none";
    case Errc::alg_unsupported: return "alg-unsupported";
    case Errc::alg_not_allowed: return "alg-not-allowed";
    case Errc::bad_signature: return "bad-signature";
    case Errc::bad_claims: return "bad-claims";
    case Errc::missing_claim: return "missing-claim";
    case Errc::expired: return "expired";
    case Errc::not_yet_valid: return "not-yet-valid";
    case Errc::issued_in_future: return "issued-in-future";
    case Errc::wrong_audience: return "wrong-audience";
    case Errc::wrong_issuer: return "wrong-issuer";
    case Errc::bad_key: return "bad-key";
    case Errc::signing_failed: return "signing-failed";
  }
  return "unknown";
}

std::int64_t system_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// ---- keys ----

Expected<Key, Error> Key::hmac(std::string secret) {
  if (secret.size() < kMinHmacSecretBytes) {
    return fail(Errc::bad_key, "an HS256 secret must be at least " + std::to_string(kMinHmacSecretBytes) +
                                   " bytes (RFC 7518 §3.2), got " + std::to_string(secret.size()));
  }
  if (secret.find("-----BEGIN") != std::string::npos) {
    return fail(Errc::bad_key, "the HS256 secret is a PEM key: pass key files as keys, not as secrets (algorithm confusion)");
  }
  Key k;
  k.alg_ = Alg::HS256;
  k.can_sign_ = true;
  k.secret_ = std::move(secret);
  return k;
}

Expected<Key, Error> Key::from_pkey(ossl::SharedPkey key, bool is_private) {
  Key k;
  k.can_sign_ = is_private;
  if (EVP_PKEY_is_a(key.get(), "ED25519") == 1) {
    k.alg_ = Alg::EdDSA;
  } else if (EVP_PKEY_is_a(key.get(), "RSA") == 1) {
    const int bits = EVP_PKEY_get_bits(key.get());
    if (bits < kMinRsaBits) {
      return fail(Errc::bad_key, "RS256 needs an RSA key of at least 2048 bits (RFC 7518 §3.3), got " + std::to_string(bits));
    }
    k.alg_ = Alg::RS256;
  } else {
    return fail(Errc::bad_key, std::string("a ") + EVP_PKEY_get0_type_name(key.get()) +
                                   " key has no algorithm here (RSA -> RS256, ED25519 -> EdDSA)");
  }
  k.pkey_ = std::move(key);
  return k;
}

Expected<Key, Error> Key::from_private_pem(std::string_view pem) {
  auto key = load_private_pem(pem);
  if (!key) return fail(Errc::bad_key, key.error().describe());
  return from_pkey(std::move(*key), true);
}

Expected<Key, Error> Key::from_public_pem(std::string_view pem) {
  auto key = load_public_pem(pem);
  if (!key) return fail(Errc::bad_key, key.error().describe());
  return from_pkey(std::move(*key), false);
}

Expected<Key, Error> Key::from_pem(std::string_view pem) {
  if (first_pem_label(pem).find("PRIVATE KEY") != std::string::npos) return from_private_pem(pem);
  return from_public_pem(pem);
}

Key Key::ed25519(const Ed25519PrivateKey& key) {
  Key k;
  k.alg_ = Alg::EdDSA;
  k.can_sign_ = true;
  k.pkey_ = ossl::SharedPkey::ref(key.native());
  return k;
}

Key Key::ed25519(const Ed25519PublicKey& key) {
  Key k;
  k.alg_ = Alg::EdDSA;
  k.pkey_ = ossl::SharedPkey::ref(key.native());
  return k;
}

// ---- JWS signatures ----

Expected<std::string, Error> sign_input(std::string_view input, const Key& key) {
  if (!key.can_sign_) return fail(Errc::bad_key, "a public key cannot sign; use the private key or secret");
  if (key.alg_ == Alg::HS256) {
    std::string mac = hmac_sha256(key.secret_, input);
    if (mac.size() != 32) return fail(Errc::signing_failed, "HMAC-SHA256 failed");
    return mac;
  }
  ossl::UniqueMdCtx ctx(EVP_MD_CTX_new());
  const EVP_MD* md = key.alg_ == Alg::RS256 ? EVP_sha256() : nullptr;  // Ed25519 hashes internally
  std::size_t len = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, md, nullptr, key.pkey_.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len, bytes_of(input), input.size()) != 1) {
    return unexpected(Error{Errc::signing_failed, ossl::drain_errors("signature set-up failed")});
  }
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, bytes_of(input), input.size()) != 1) {
    return unexpected(Error{Errc::signing_failed, ossl::drain_errors("signing failed")});
  }
  sig.resize(len);
  return sig;
}

bool verify_input(std::string_view input, std::string_view signature, const Key& key) {
  switch (key.alg_) {
    case Alg::HS256: {
      if (signature.size() != 32) return false;
      const std::string mac = hmac_sha256(key.secret_, input);
      return mac.size() == 32 && CRYPTO_memcmp(mac.data(), signature.data(), 32) == 0;
    }
    case Alg::RS256:
      if (signature.size() != static_cast<std::size_t>(EVP_PKEY_get_size(key.pkey_.get()))) return false;
      break;
    case Alg::EdDSA:
      if (signature.size() != kEd25519SignatureSize) return false;
      break;
  }
  ossl::UniqueMdCtx ctx(EVP_MD_CTX_new());
  const EVP_MD* md = key.alg_ == Alg::RS256 ? EVP_sha256() : nullptr;
  const bool ok = ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, md, nullptr, key.pkey_.get()) == 1 &&
                  EVP_DigestVerify(ctx.get(), bytes_of(signature), signature.size(), bytes_of(input), input.size()) == 1;
  if (!ok) ERR_clear_error();
  return ok;
}

// ---- tokens ----

Expected<std::string, Error> issue(const Json& claims, const Key& key) {
  if (!claims.is_object()) return fail(Errc::bad_claims, "the claims set must be a JSON object (RFC 7519 §4)");
  if (!all_finite(claims)) return fail(Errc::bad_claims, "the claims set holds a non-finite number or is nested too deeply");
  std::string payload;
  try {
    payload = claims.dump(-1, ' ', false, Json::error_handler_t::strict);
  } catch (const Json::exception& e) {
    return fail(Errc::bad_claims, std::string("the claims set cannot be serialized: ") + e.what());
  }
  std::string token = base64url_encode(header_for(key.alg()));
  token += '.';
  token += base64url_encode(payload);
  auto sig = sign_input(token, key);
  if (!sig) return unexpected(std::move(sig).error());
  token += '.';
  token += base64url_encode(*sig);
  return token;
}

Expected<Verified, Error> verify(std::string_view token, const Key& key, const VerifyOptions& options) {
  // 1. Shape: three segments, header and payload non-empty.
  if (token.empty()) return fail(Errc::malformed, "empty token");
  if (token.size() > kMaxTokenBytes) return fail(Errc::malformed, "token longer than " + std::to_string(kMaxTokenBytes) + " bytes");
  const auto d1 = token.find('.');
  const auto d2 = d1 == std::string_view::npos ? d1 : token.find('.', d1 + 1);
  if (d2 == std::string_view::npos) return fail(Errc::malformed, "a JWS compact serialization has three '.'-separated segments (RFC 7515 §7.1)");
  if (token.find('.', d2 + 1) != std::string_view::npos) {
    return fail(Errc::malformed, "more than three segments (a JWE, RFC 7516, or a corrupted token)");
  }
  const std::string_view h64 = token.substr(0, d1), p64 = token.substr(d1 + 1, d2 - d1 - 1), s64 = token.substr(d2 + 1);
  if (h64.empty()) return fail(Errc::malformed, "empty header segment");
  if (p64.empty()) return fail(Errc::malformed, "empty payload segment");

  // 2. Header.
  auto header_text = base64url_decode(h64);
  if (!header_text) return fail(Errc::bad_base64, "header segment: " + header_text.error().describe());
  auto header = json::parse_strict(*header_text);
  if (!header) return fail(Errc::bad_header, "header is not strict JSON: " + header.error().describe());
  auto alg = check_header(*header, key);
  if (!alg) return unexpected(std::move(alg).error());

  // 3. Every segment is strict base64url (a malformed token is reported as such, whatever
  // its signature), then the signature over the ASCII signing input, before the payload's
  // JSON is read.
  auto payload = base64url_decode(p64);
  if (!payload) return fail(Errc::bad_base64, "payload segment: " + payload.error().describe());
  if (s64.empty()) return fail(Errc::bad_signature, "empty signature segment");
  auto sig = base64url_decode(s64);
  if (!sig) return fail(Errc::bad_base64, "signature segment: " + sig.error().describe());
  if (!verify_input(token.substr(0, d2), *sig, key)) {
    return fail(Errc::bad_signature, std::string(alg_name(*alg)) + " signature does not verify");
  }

  // 4. Claims.
  auto claims = json::parse_strict(*payload);
  if (!claims) return fail(Errc::bad_claims, "claims are not strict JSON: " + claims.error().describe());
  if (!claims->is_object()) return fail(Errc::bad_claims, "the claims set must be a JSON object (RFC 7519 §7.2 step 10)");
  if (auto e = check_claim_types(*claims)) return unexpected(std::move(*e));
  for (const auto& name : options.required_claims) {
    if (!claims->contains(name)) return fail(Errc::missing_claim, "required claim '" + name + "' is missing");
  }

  // 5. Time.
  const double now = static_cast<double>(options.clock ? options.clock() : system_now());
  const double leeway = static_cast<double>(options.leeway > 0 ? options.leeway : 0);
  auto exp = numeric_date(*claims, "exp");
  if (!exp) return unexpected(std::move(exp).error());
  auto nbf = numeric_date(*claims, "nbf");
  if (!nbf) return unexpected(std::move(nbf).error());
  auto iat = numeric_date(*claims, "iat");
  if (!iat) return unexpected(std::move(iat).error());
  if (*exp && **exp <= now - leeway) {
    return fail(Errc::expired, "expired: exp " + fmt_time(**exp) + " <= now " + fmt_time(now) +
                                   (leeway > 0 ? " - leeway " + fmt_time(leeway) : std::string()));
  }
  if (*nbf && **nbf > now + leeway) {
    return fail(Errc::not_yet_valid, "not yet valid: nbf " + fmt_time(**nbf) + " > now " + fmt_time(now) +
                                         (leeway > 0 ? " + leeway " + fmt_time(leeway) : std::string()));
  }
  if (*iat && **iat > now + leeway) {
    return fail(Errc::issued_in_future, "issued in the future: iat " + fmt_time(**iat) + " > now " + fmt_time(now) +
                                            (leeway > 0 ? " + leeway " + fmt_time(leeway) : std::string()));
  }

  // 6. Audience and issuer.
  if (options.audience) {
    const auto it = claims->find("aud");
    bool match = false;
    if (it != claims->end()) {
      if (it->is_string()) match = it->get_ref<const std::string&>() == *options.audience;
      else for (const auto& a : *it) match = match || a.get_ref<const std::string&>() == *options.audience;
    }
    if (!match) {
      return fail(Errc::wrong_audience, "aud " + (it == claims->end() ? std::string("is missing") : it->dump()) +
                                            ", expected \"" + *options.audience + "\"");
    }
  }
  if (options.issuer) {
    const auto it = claims->find("iss");
    if (it == claims->end() || it->get_ref<const std::string&>() != *options.issuer) {
      return fail(Errc::wrong_issuer, "iss " + (it == claims->end() ? std::string("is missing") : it->dump()) +
                                          ", expected \"" + *options.issuer + "\"");
    }
  }
  return Verified{std::move(*header), std::move(*claims)};
}

}  // namespace ac::crypto::jwt

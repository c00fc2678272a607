// AgentProtocol 0.1 message signatures (agentprotocol-0.1.md §Signature Verification).
//
// The spec's recipe ("sort fields canonically, remove signature, JSON.stringify with sorted
// keys") is made exact here as: signature base = RFC 8785 canonical form (ac::json::canonicalize)
// of the message object without its `signature` member; signed with Ed25519; `signature` =
// standard padded base64 of the 64-byte signature; `from.agentId` = standard padded base64 of
// the raw 32-byte public key, which is the key the signature is checked against.
//
// verify() gives one precise reason per failure (missing signature, not a string, bad base64,
// wrong length, missing/invalid agent id, canonicalization failure, mismatch), each mapped to
// the spec's error code INVALID_SIGNATURE or INVALID_MESSAGE. verify_text() starts from the raw
// bytes with the strict reader, so a message with duplicate member names (which two parsers
// could read differently) never reaches the signature check.
#pragma once

#include <string>
#include <string_view>

#include "harness/crypto/ed25519.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/util/expected.hpp"

namespace ac::proto::agentprotocol {

using Json = nlohmann::json;

enum class SignatureFailure {
  invalid_json,              // verify_text: the bytes are not strict JSON
  not_an_object,             // the message is not a JSON object
  missing_signature,         // no `signature` member
  signature_not_string,      // `signature` is not a string
  signature_bad_base64,      // not strict standard base64
  signature_wrong_length,    // decodes to other than 64 bytes
  missing_agent_id,          // no `from` object or no `from.agentId`
  agent_id_not_string,       // `from.agentId` is not a string
  agent_id_bad_base64,       // not strict standard base64
  agent_id_wrong_length,     // decodes to other than 32 bytes
  agent_id_invalid_point,    // 32 bytes that are not an Ed25519 public key
  canonicalization_failed,   // the message (without signature) has no RFC 8785 form
  signature_mismatch,        // well-formed, but does not verify
  signing_failed,            // sign(): OpenSSL failed
};

// Stable kebab-case name ("signature-mismatch").
std::string_view failure_name(SignatureFailure f);

struct SignatureError {
  SignatureFailure reason = SignatureFailure::signature_mismatch;
  std::string pointer;  // JSON Pointer of the field at fault ("/signature", "/from/agentId", "")
  std::string message;  // one line

  // The spec's error code (§Error Codes): INVALID_SIGNATURE for the signature and key,
  // INVALID_MESSAGE when the message itself is unusable.
  std::string_view code() const;
  // "signature-mismatch at /signature: ..."
  std::string describe() const;
};

// The exact bytes that are signed: canonical form of `message` minus `signature`.
Expected<std::string, SignatureError> signature_base(const Json& message);

// base64 of the key's raw 32-byte public key: the value from.agentId must have.
std::string agent_id(const crypto::Ed25519PublicKey& key);

// `message` with `signature` set (replaced if present); nothing else is changed, in particular
// from.agentId is not checked or set (see with_agent_id()).
Expected<Json, SignatureError> sign(Json message, const crypto::Ed25519PrivateKey& key);
// The same, handing back the signature base it signed (`base`; left alone on failure).
Expected<Json, SignatureError> sign(Json message, const crypto::Ed25519PrivateKey& key, std::string& base);

// `message` with from.agentId set to the key's agent id (creating `from` if absent).
Json with_agent_id(Json message, const crypto::Ed25519PublicKey& key);

// The public key a message names in from.agentId (validated; cached per thread).
Expected<crypto::Ed25519PublicKey, SignatureError> sender_key(const Json& message);

struct Verified {
  crypto::Ed25519PublicKey key;  // the sender's key
};

Expected<Verified, SignatureError> verify(const Json& message);
Expected<Verified, SignatureError> verify_text(std::string_view bytes, const json::ReadLimits& limits = {});

}  // namespace ac::proto::agentprotocol

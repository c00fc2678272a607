// AgentProtocol 0.1 Ed25519 signatures over RFC 8785 canonical JSON (see signature.hpp).
#include "harness/protocols/agentprotocol/signature.hpp"

#include "harness/crypto/base64.hpp"
#include "harness/json/canonical.hpp"

namespace ac::proto::agentprotocol {
namespace {

Unexpected<SignatureError> fail(SignatureFailure reason, std::string pointer, std::string message) {
  return unexpected(SignatureError{reason, std::move(pointer), std::move(message)});
}

constexpr const char* kSection = " (agentprotocol-0.1.md §Signature Verification)";

}  // namespace

std::string_view failure_name(SignatureFailure f) {
  switch (f) {
    case SignatureFailure::invalid_json: return "invalid-json";
    case SignatureFailure::not_an_object: return "not-an-object";
    case SignatureFailure::missing_signature: return "missing-signature";
    case SignatureFailure::signature_not_string: return "signature-not-string";
    case SignatureFailure::signature_bad_base64: return "signature-bad-base64";
    case SignatureFailure::signature_wrong_length: return "signature-wrong-length";
    case SignatureFailure::missing_agent_id: return "missing-agent-id";
    case SignatureFailure::agent_id_not_string: return "agent-id-not-string";
    case SignatureFailure::agent_id_bad_base64: return "agent-id-bad-base64";
    case SignatureFailure::agent_id_wrong_length: return "agent-id-wrong-length";
    case SignatureFailure::agent_id_invalid_point: return "agent-id-invalid-point";
    case SignatureFailure::canonicalization_failed: return "canonicalization-failed";
    case SignatureFailure::signature_mismatch: return "signature-mismatch";
    case SignatureFailure::signing_failed: return "signing-failed";
  }
  return "unknown";
}

std::string_view SignatureError::code() const {
  switch (reason) {
    case SignatureFailure::invalid_json:
    case SignatureFailure::not_an_object:
    case SignatureFailure::canonicalization_failed:
      return "INVALID_MESSAGE";
    case SignatureFailure::signing_failed:
      return "INTERNAL_ERROR";
    default:
      return "INVALID_SIGNATURE";
  }
}

std::string SignatureError::describe() const {
  return std::string(failure_name(reason)) + (pointer.empty() ? std::string() : " at " + pointer) + ": " + message;
}

Expected<std::string, SignatureError> signature_base(const Json& message) {
  if (!message.is_object()) return fail(SignatureFailure::not_an_object, "", "an AgentProtocol message is a JSON object");
  Expected<std::string, json::CanonError> canon = std::string();
  if (message.contains("signature")) {
    Json unsigned_message = message;
    unsigned_message.erase("signature");
    canon = json::canonicalize(unsigned_message);
  } else {
    canon = json::canonicalize(message);
  }
  if (!canon) {
    return fail(SignatureFailure::canonicalization_failed, canon.error().pointer,
                "no RFC 8785 canonical form: " + canon.error().describe());
  }
  return std::move(*canon);
}

std::string agent_id(const crypto::Ed25519PublicKey& key) { return crypto::base64_encode(key.raw()); }

Json with_agent_id(Json message, const crypto::Ed25519PublicKey& key) {
  if (!message.is_object()) return message;
  if (!message.contains("from") || !message["from"].is_object()) message["from"] = Json::object();
  message["from"]["agentId"] = agent_id(key);
  return message;
}

Expected<Json, SignatureError> sign(Json message, const crypto::Ed25519PrivateKey& key, std::string& base) {
  auto canon = signature_base(message);
  if (!canon) return unexpected(std::move(canon).error());
  auto sig = key.sign(*canon);
  if (!sig) return fail(SignatureFailure::signing_failed, "/signature", sig.error().describe());
  message["signature"] = crypto::base64_encode(*sig);
  base = std::move(*canon);
  return message;
}

Expected<Json, SignatureError> sign(Json message, const crypto::Ed25519PrivateKey& key) {
  std::string base;
  return sign(std::move(message), key, base);
}

Expected<crypto::Ed25519PublicKey, SignatureError> sender_key(const Json& message) {
  static const std::string ptr = "/from/agentId";
  if (!message.is_object()) return fail(SignatureFailure::not_an_object, "", "an AgentProtocol message is a JSON object");
  const auto from = message.find("from");
  if (from == message.end() || !from->is_object()) {
    return fail(SignatureFailure::missing_agent_id, "/from", "no 'from' object, so no sender key to verify against");
  }
  const auto id = from->find("agentId");
  if (id == from->end()) return fail(SignatureFailure::missing_agent_id, ptr, "no from.agentId, so no sender key to verify against");
  if (!id->is_string()) return fail(SignatureFailure::agent_id_not_string, ptr, std::string("from.agentId is a ") + id->type_name() + ", not a string");
  auto raw = crypto::base64_decode(id->get_ref<const std::string&>());
  if (!raw) {
    return fail(SignatureFailure::agent_id_bad_base64, ptr,
                "from.agentId is not strict base64 of an Ed25519 public key: " + raw.error().describe());
  }
  if (raw->size() != crypto::kEd25519PublicKeySize) {
    return fail(SignatureFailure::agent_id_wrong_length, ptr,
                "from.agentId decodes to " + std::to_string(raw->size()) + " bytes; an Ed25519 public key is 32");
  }
  auto key = crypto::cached_public_key(*raw);
  if (!key) {
    return fail(SignatureFailure::agent_id_invalid_point, ptr, "from.agentId is not a valid Ed25519 public key: " + key.error().message);
  }
  return std::move(*key);
}

Expected<Verified, SignatureError> verify(const Json& message) {
  static const std::string ptr = "/signature";
  if (!message.is_object()) return fail(SignatureFailure::not_an_object, "", "an AgentProtocol message is a JSON object");
  const auto sig_it = message.find("signature");
  if (sig_it == message.end()) return fail(SignatureFailure::missing_signature, ptr, std::string("the message has no signature") + kSection);
  if (!sig_it->is_string()) {
    return fail(SignatureFailure::signature_not_string, ptr, std::string("signature is a ") + sig_it->type_name() + ", not a base64 string");
  }
  auto sig = crypto::base64_decode(sig_it->get_ref<const std::string&>());
  if (!sig) return fail(SignatureFailure::signature_bad_base64, ptr, "signature is not strict base64: " + sig.error().describe());
  if (sig->size() != crypto::kEd25519SignatureSize) {
    return fail(SignatureFailure::signature_wrong_length, ptr,
                "signature decodes to " + std::to_string(sig->size()) + " bytes; an Ed25519 signature is 64");
  }
  auto key = sender_key(message);
  if (!key) return unexpected(std::move(key).error());
  auto base = signature_base(message);
  if (!base) return unexpected(std::move(base).error());
  if (!key->verify(*base, *sig)) {
    return fail(SignatureFailure::signature_mismatch, ptr,
                std::string("the Ed25519 signature does not match the canonical message under from.agentId") + kSection);
  }
  return Verified{std::move(*key)};
}

Expected<Verified, SignatureError> verify_text(std::string_view bytes, const json::ReadLimits& limits) {
  auto parsed = json::parse_strict(bytes, limits);
  if (!parsed) return fail(SignatureFailure::invalid_json, parsed.error().pointer, parsed.error().describe());
  return verify(*parsed);
}

}  // namespace ac::proto::agentprotocol

// serialize -> parse -> equal, for every message type of every protocol, on RapidCheck-generated
// messages that are valid by construction. decode() validates against the schemas, so a
// successful decode also proves that every generated message validates; a failure prints the
// codec error and the bytes.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <limits>

#include "harness/protocols/a2acp/codec.hpp"
#include "harness/protocols/agentprotocol/codec.hpp"
#include "harness/protocols/agora/codec.hpp"
#include "harness/protocols/alp/codec.hpp"
#include "harness/protocols/chopsticks/codec.hpp"
#include "tests/protocols/generators.hpp"

namespace ac::test {
namespace {

using Json = nlohmann::json;
using gen::list;
using gen::optional;

// Non-negative integers as the schemas can judge them: valijson's nlohmann adapter reads integers
// as int64_t, so an unsigned value above INT64_MAX wraps negative and fails `minimum: 0`
// (reported to the schema store's owner).
rc::Gen<std::uint64_t> non_negative() {
  return rc::gen::inRange<std::uint64_t>(0, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
}

// encode -> decode gives the same typed message and the same JSON.
template <typename Message, typename Decode, typename Encode, typename ToJson>
void check_roundtrip(const Message& m, Decode decode, Encode encode, ToJson to_json) {
  const std::string bytes = encode(m);
  auto back = decode(bytes);
  if (!back) RC_FAIL("does not decode (" + back.error().describe() + "): " + bytes);
  RC_ASSERT(to_json(*back) == to_json(m));
  RC_ASSERT(*back == m);
  RC_ASSERT(encode(*back) == bytes);
}

// ---- ALP ------------------------------------------------------------------------------------------

namespace alp = proto::alp;

rc::Gen<alp::ErrorObject> alp_error() {
  return rc::gen::exec([] {
    alp::ErrorObject e;
    e.code = *gen::nonempty_text();
    e.message = *gen::text();
    e.details = *optional(gen::json_object());
    e.retryable = *optional(rc::gen::arbitrary<bool>());
    return e;
  });
}

rc::Gen<alp::Capability> alp_capability() {
  return rc::gen::exec([] {
    alp::Capability c;
    c.name = *gen::nonempty_text();
    c.capability_version = *gen::semver();
    c.description = *gen::text();
    c.input_schema = *gen::json_object();
    c.output_schema = *gen::json_object();
    c.error_schema = *optional(gen::json_object());
    c.keywords = *optional(list(gen::text()));
    if (*rc::gen::arbitrary<bool>()) {
      alp::AuthorizationRules r;
      r.type = *rc::gen::oneOf(rc::gen::element<std::string>("allow_list", "requires_role", "public"), gen::nonempty_text());
      r.allowed_agent_ids = *optional(list(gen::text()));
      r.required_roles = *optional(list(gen::text()));
      // §9: allow_list needs allowed_agent_ids, requires_role needs required_roles (ALP-14).
      if (r.type == "allow_list" && !r.allowed_agent_ids) r.allowed_agent_ids = std::vector<std::string>{};
      if (r.type == "requires_role" && !r.required_roles) r.required_roles = std::vector<std::string>{"admin"};
      c.authorization_rules = std::move(r);
    }
    c.metadata = *optional(gen::json_object());
    return c;
  });
}

rc::Gen<alp::Payload> alp_payload(alp::MessageType type) {
  return rc::gen::exec([type]() -> alp::Payload {
    switch (type) {
      case alp::MessageType::register_client: {
        alp::RegisterClient p;
        p.capabilities = *list(alp_capability(), 3);
        p.agent_version = *gen::nonempty_text();
        p.sdk_version = *gen::nonempty_text();
        return p;
      }
      case alp::MessageType::register_client_ack: {
        alp::RegisterClientAck p;
        p.status = *rc::gen::element<std::string>("success", "failure");
        p.lobby_id = *gen::nonempty_text();
        p.message = *optional(gen::text());
        p.server_time_utc = *gen::utc_timestamp();
        p.session_id = *gen::uuid();
        return p;
      }
      case alp::MessageType::unregister_client: return alp::UnregisterClient{*optional(gen::text()), Json::object()};
      case alp::MessageType::discover_capabilities: {
        alp::DiscoverCapabilities p;
        p.capability_filter.name = *optional(gen::nonempty_text());
        p.capability_filter.version_match =
            *optional(rc::gen::element<std::string>("1.x", ">=2.0.0", "1.0.2", "^1.2.3", "~0.3", "<3 || >=5.0.0"));
        p.capability_filter.keywords = *optional(list(gen::text()));
        p.max_results = *optional(rc::gen::inRange<std::uint64_t>(1, 1u << 31));
        return p;
      }
      case alp::MessageType::capabilities_found: {
        alp::CapabilitiesFound p;
        p.query_ref = *optional(gen::uuid());
        p.agents = *list(rc::gen::exec([] {
                           alp::AgentMatch a;
                           a.agent_id = *gen::nonempty_text();
                           a.agent_type = *gen::nonempty_text();
                           a.matching_capabilities = *list(alp_capability(), 2);
                           a.last_seen_utc = *optional(gen::utc_timestamp());
                           return a;
                         }),
                         3);
        return p;
      }
      case alp::MessageType::direct_message: {
        alp::DirectMessage p;
        p.content_type = *rc::gen::element<std::string>("text/plain", "application/json", "custom/my-format",
                                                        "text/plain; charset=utf-8");
        p.content = *gen::json_value();
        return p;
      }
      case alp::MessageType::invoke_capability_request: {
        alp::InvokeCapabilityRequest p;
        p.capability_name = *gen::nonempty_text();
        p.capability_version = *optional(gen::semver());
        p.input_data = *gen::json_object();
        return p;
      }
      case alp::MessageType::invoke_capability_response: {
        alp::InvokeCapabilityResponse p;
        p.request_message_id = *gen::uuid();
        p.status = *rc::gen::element<std::string>("success", "error", "in_progress", "pending_async");
        p.output_data = *optional(gen::json_object());
        p.error_details = *optional(alp_error());
        if (p.status == "success" && !p.output_data) p.output_data = Json::object();
        if (p.status == "error" && !p.error_details) p.error_details = alp::ErrorObject{"INTERNAL_AGENT_ERROR", "x", {}, {}, Json::object()};
        if (*rc::gen::arbitrary<bool>()) {
          p.progress_info = alp::ProgressInfo{*rc::gen::inRange<std::int64_t>(0, 101), *gen::text(), Json::object()};
        }
        return p;
      }
      case alp::MessageType::lobby_broadcast: return alp::LobbyBroadcast{*gen::nonempty_text(), *gen::json_object(), Json::object()};
      case alp::MessageType::ping: return alp::Ping{*optional(gen::text()), Json::object()};
      case alp::MessageType::pong: return alp::Pong{*optional(gen::text()), Json::object()};
      case alp::MessageType::protocol_error: return alp::ProtocolError{*alp_error(), *optional(gen::text()), Json::object()};
    }
    return alp::Ping{};
  });
}

rc::Gen<alp::Message> alp_message(alp::MessageType type) {
  return rc::gen::exec([type] {
    alp::Message m;
    m.envelope.message_id = *gen::uuid();
    m.envelope.protocol_version = *gen::semver();
    m.envelope.sender_id = *gen::nonempty_text();
    m.envelope.receiver_id = *rc::gen::oneOf(rc::gen::just(std::string("BROADCAST_ALL")), gen::nonempty_text());
    m.envelope.timestamp = *gen::utc_timestamp();
    m.envelope.conversation_id = *optional(gen::uuid());
    m.envelope.auth_token = *optional(gen::text());
    m.envelope.metadata = *optional(gen::json_object());
    m.payload = *alp_payload(type);
    return m;
  });
}

RC_GTEST_PROP(RoundtripProperty, Alp, ()) {
  for (std::size_t i = 0; i < alp::kMessageTypeCount; ++i) {
    const auto m = *alp_message(static_cast<alp::MessageType>(i));
    check_roundtrip(
        m, [](const std::string& b) { return alp::decode(b); }, [](const alp::Message& x) { return alp::encode(x); },
        [](const alp::Message& x) { return alp::to_json(x); });
  }
}

// ---- Agora ----------------------------------------------------------------------------------------

namespace agora = proto::agora;

// An open payload object whose request_id, if any, is a string or an integer (AG-9).
rc::Gen<Json> agora_payload() {
  return rc::gen::exec([] {
    Json p = *gen::json_object();
    p.erase("request_id");
    if (*rc::gen::arbitrary<bool>()) {
      p["request_id"] = *rc::gen::oneOf(rc::gen::map(gen::word(), [](std::string s) { return Json(s); }),
                                        rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t n) { return Json(n); }));
    }
    return p;
  });
}

// stream true needs stream_id; otherwise payload is required (AG-3).
template <typename Start>
void fill_start(Start& s) {
  s.stream = *optional(rc::gen::arbitrary<bool>());
  s.stream_id = *optional(gen::nonempty_text());
  s.payload = *optional(agora_payload());
  if (s.stream == true && !s.stream_id) s.stream_id = "stream-1";
  if (s.stream != true && !s.payload) s.payload = Json::object();
  s.extra = *gen::extras();
}

rc::Gen<agora::Message> agora_message(agora::MessageType type) {
  return rc::gen::exec([type]() -> agora::Message {
    using T = agora::MessageType;
    const std::string peer = *gen::nonempty_text();
    const std::string stream_id = *gen::nonempty_text();
    const Json extra = *gen::extras();
    switch (type) {
      case T::send: {
        agora::Send s;
        s.to = peer;
        fill_start(s);
        return {s};
      }
      case T::send_chunk: return {agora::SendChunk{peer, stream_id, *gen::text(), extra}};
      case T::send_end: return {agora::SendEnd{peer, stream_id, extra}};
      case T::message: {
        agora::Forward s;
        s.from = peer;
        fill_start(s);
        return {s};
      }
      case T::message_chunk: return {agora::ForwardChunk{peer, stream_id, *gen::text(), extra}};
      case T::message_end: return {agora::ForwardEnd{peer, stream_id, extra}};
      case T::reply: {
        agora::Reply s;
        s.to = peer;
        s.from = *optional(gen::nonempty_text());
        fill_start(s);
        return {s};
      }
      case T::reply_chunk: return {agora::ReplyChunk{peer, *optional(gen::nonempty_text()), stream_id, *gen::text(), extra}};
      case T::reply_end: return {agora::ReplyEnd{peer, *optional(gen::nonempty_text()), stream_id, extra}};
      case T::error: {
        const std::string code = *rc::gen::oneOf(
            rc::gen::element<std::string>("UNKNOWN_RECIPIENT", "UNKNOWN_STREAM", "STREAM_ENDED", "INVALID_FRAME"),
            rc::gen::map(gen::word(), [](std::string w) {
              std::string c = "X";
              for (char ch : w) c += ch == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
              return c;
            }));
        return {agora::Error{code, *gen::text(), *optional(gen::nonempty_text()), extra}};
      }
    }
    return {agora::Error{}};
  });
}

RC_GTEST_PROP(RoundtripProperty, Agora, ()) {
  for (std::size_t i = 0; i < agora::kMessageTypeCount; ++i) {
    const auto m = *agora_message(static_cast<agora::MessageType>(i));
    check_roundtrip(
        m, [](const std::string& b) { return agora::decode(b); }, [](const agora::Message& x) { return agora::encode(x); },
        [](const agora::Message& x) { return agora::to_json(x); });
  }
}

// ---- AgentProtocol --------------------------------------------------------------------------------

namespace ap = proto::agentprotocol;

rc::Gen<std::string> capability_uri() {
  return rc::gen::exec([] {
    return *rc::gen::element<std::string>("agentprotocol", "myagent", "x+y.z-1") + ":" + *gen::word() +
           *rc::gen::element<std::string>("", "/en-de", ":tasks");
  });
}

rc::Gen<ap::Payload> ap_payload(ap::MessageType type) {
  return rc::gen::exec([type]() -> ap::Payload {
    switch (type) {
      case ap::MessageType::hello: {
        ap::Hello p;
        p.version = std::to_string(*rc::gen::inRange(0, 10)) + "." + std::to_string(*rc::gen::inRange(0, 100));
        p.features = *optional(list(gen::nonempty_text()));
        p.extra = *gen::extras();
        return p;
      }
      case ap::MessageType::request: {
        ap::Request p;
        p.action = *gen::nonempty_text();
        p.correlation_id = *gen::nonempty_text();
        p.params = *optional(gen::json_object());
        p.timeout = *optional(non_negative());
        p.extra = *gen::extras();
        return p;
      }
      case ap::MessageType::response: {
        ap::Response p;
        p.correlation_id = *gen::nonempty_text();
        p.status = *gen::nonempty_text();
        p.result = *optional(gen::json_value());
        p.extra = *gen::extras();
        return p;
      }
      case ap::MessageType::notify: return ap::Notify{*gen::json_object()};
      case ap::MessageType::error: {
        ap::Error p;
        p.correlation_id = *optional(gen::nonempty_text());
        p.code = *gen::nonempty_text();
        p.message = *gen::text();
        p.details = *optional(gen::json_object());
        p.extra = *gen::extras();
        return p;
      }
    }
    return ap::Notify{};
  });
}

rc::Gen<ap::Message> ap_message(ap::MessageType type) {
  return rc::gen::exec([type] {
    ap::Message m;
    m.envelope.id = *gen::uuid();
    m.envelope.timestamp = *gen::utc_timestamp();
    m.envelope.from.agent_id = *gen::base64_bytes(32);
    m.envelope.from.name = *optional(gen::text());
    m.envelope.from.capabilities = *list(capability_uri());
    m.envelope.to.agent_id = *rc::gen::oneOf(gen::base64_bytes(32), gen::nonempty_text());
    m.envelope.to.broadcast = *rc::gen::arbitrary<bool>();
    m.envelope.signature = *optional(gen::base64_bytes(64));
    m.envelope.metadata = *optional(gen::json_object());
    m.payload = *ap_payload(type);
    return m;
  });
}

RC_GTEST_PROP(RoundtripProperty, AgentProtocol, ()) {
  for (std::size_t i = 0; i < ap::kMessageTypeCount; ++i) {
    const auto m = *ap_message(static_cast<ap::MessageType>(i));
    check_roundtrip(
        m, [](const std::string& b) { return ap::decode(b); }, [](const ap::Message& x) { return ap::encode(x); },
        [](const ap::Message& x) { return ap::to_json(x); });
  }
}

// ---- A2ACP ----------------------------------------------------------------------------------------

namespace a2 = proto::a2acp;

rc::Gen<a2::Agent> a2_agent() {
  return rc::gen::exec([] {
    a2::Agent a;
    a.agent_id = *gen::text();
    a.domain = *gen::text();
    a.version = std::to_string(*rc::gen::inRange(0, 20)) + "." + std::to_string(*rc::gen::inRange(0, 20)) + "." +
                std::to_string(*rc::gen::inRange(0, 200));
    a.extra = *gen::extras();
    return a;
  });
}

rc::Gen<a2::Payload> a2_payload(a2::MessageType type) {
  return rc::gen::exec([type]() -> a2::Payload {
    using T = a2::MessageType;
    switch (type) {
      case T::request: return a2::Request{*optional(gen::json_object())};
      case T::response: return a2::Response{*optional(gen::json_object())};
      case T::event: return a2::Event{*optional(gen::json_object())};
      case T::error: {
        a2::Error p;
        p.error.code = *rc::gen::element<std::string>("CAPABILITY_NOT_FOUND", "SCHEMA_MISMATCH", "AUTH_FAILED", "TIMEOUT",
                                                      "INTERNAL_ERROR", "RATE_LIMIT_EXCEEDED", "CONTRACT_VIOLATION",
                                                      "SECURITY_POLICY_VIOLATION");
        p.error.message = *gen::text();
        p.error.details = *optional(gen::json_object());
        p.error.retry_after = *non_negative();
        p.error.correlation_id = *optional(gen::text());
        p.error.extra = *gen::extras();
        p.extra = *gen::extras();
        return p;
      }
      case T::initiate_handshake:
        return a2::InitiateHandshake{*gen::nonempty_text(), *gen::nonempty_text(), *gen::extras()};
      case T::accept_handshake: {
        a2::AcceptHandshake p;
        if (*rc::gen::arbitrary<bool>()) {
          p.payload = a2::HandshakeOffer{*optional(gen::nonempty_text()), *optional(gen::nonempty_text()),
                                         *optional(gen::nonempty_text()), *gen::extras()};
        }
        return p;
      }
      case T::handshake_decision:
        return a2::HandshakeDecision{*rc::gen::arbitrary<bool>(), *optional(gen::text()), *gen::extras()};
      case T::handshake_result: {
        a2::HandshakeResult p;
        p.collaboration_id = *gen::nonempty_text();
        p.contract.contract_id = *gen::nonempty_text();
        p.contract.input_schema = *optional(gen::json_object());
        p.contract.output_schema = *optional(gen::json_object());
        p.contract.security_policy = *optional(gen::json_object());
        p.contract.extra = *gen::extras();
        p.extra = *gen::extras();
        return p;
      }
    }
    return a2::Request{};
  });
}

rc::Gen<a2::Message> a2_message(a2::MessageType type) {
  return rc::gen::exec([type] {
    a2::Message m;
    m.envelope.protocol_version = std::to_string(*rc::gen::inRange(0, 5)) + "." + std::to_string(*rc::gen::inRange(0, 10));
    m.envelope.message_id = *gen::uuid();
    m.envelope.timestamp = *gen::utc_timestamp();
    m.envelope.source_agent = *a2_agent();
    m.envelope.target_agent = *a2_agent();
    if (auto implied = a2::implied_intent(type)) {
      m.envelope.intent = std::string(*implied);
    } else {
      // A generic request or response must not carry a handshake intent (that selects another key).
      m.envelope.intent = *optional(rc::gen::oneOf(rc::gen::just(std::string("provision_test_dataset")), gen::word()));
    }
    m.envelope.security.auth_token = *gen::text();
    m.envelope.security.encryption = *optional(rc::gen::element<std::string>("none", "aes256"));
    m.envelope.security.extra = *gen::extras();
    m.envelope.extra = *gen::extras();
    m.payload = *a2_payload(type);
    return m;
  });
}

RC_GTEST_PROP(RoundtripProperty, A2acp, ()) {
  for (std::size_t i = 0; i < a2::kMessageTypeCount; ++i) {
    const auto m = *a2_message(static_cast<a2::MessageType>(i));
    check_roundtrip(
        m, [](const std::string& b) { return a2::decode(b); }, [](const a2::Message& x) { return a2::encode(x); },
        [](const a2::Message& x) { return a2::to_json(x); });
  }
}

// ---- Chopsticks -----------------------------------------------------------------------------------

namespace ch = proto::chopsticks;

rc::Gen<ch::Message> ch_message(ch::MessageType type) {
  return rc::gen::exec([type]() -> ch::Message {
    using T = ch::MessageType;
    const Json extra = *gen::extras();
    const auto id = [] { return *rc::gen::oneOf(gen::word(), gen::nonempty_text()); };
    const auto kind = [] { return *rc::gen::element<std::string>("music", "assistant"); };
    switch (type) {
      case T::hello: {
        ch::Hello h;
        h.protocol_version = *gen::semver();
        h.agent_id = id();
        h.bot_user_id = *optional(gen::text());
        h.tag = *optional(gen::text());
        h.ready = *rc::gen::arbitrary<bool>();
        h.guild_ids = *list(gen::nonempty_text());
        h.pool_id = id();
        h.runner_secret = *optional(gen::text());
        h.extra = extra;
        return {h};
      }
      case T::guilds: return {ch::Guilds{*list(gen::nonempty_text()), extra}};
      case T::event_released: return {ch::EventReleased{id(), id(), id(), id(), kind(), extra}};
      case T::event_add: {
        ch::EventAdd e;
        e.agent_id = id();
        e.guild_id = id();
        e.voice_channel_id = id();
        e.text_channel_id = *optional(gen::nonempty_text());
        e.channel_id = e.voice_channel_id;
        e.kind = kind();
        e.owner_user_id = *optional(gen::nonempty_text());
        e.ok = *rc::gen::arbitrary<bool>();
        e.error = *optional(gen::text());
        e.extra = extra;
        return {e};
      }
      case T::resp:
        return {ch::Resp{*gen::uuid(), *rc::gen::arbitrary<bool>(), *optional(gen::json_value()), *optional(gen::text()), extra}};
      case T::req: return {ch::Req{*gen::uuid(), id(), *optional(gen::json_value()), id(), extra}};
      case T::error: return {ch::Error{*gen::text(), extra}};
    }
    return {ch::Error{}};
  });
}

RC_GTEST_PROP(RoundtripProperty, Chopsticks, ()) {
  for (std::size_t i = 0; i < ch::kMessageTypeCount; ++i) {
    const auto m = *ch_message(static_cast<ch::MessageType>(i));
    check_roundtrip(
        m, [](const std::string& b) { return ch::decode(b); }, [](const ch::Message& x) { return ch::encode(x); },
        [](const ch::Message& x) { return ch::to_json(x); });
  }
}

}  // namespace
}  // namespace ac::test

#include "harness/protocols/agentprotocol/builders.hpp"

#include "harness/protocols/typed/stamp.hpp"

namespace ac::proto::agentprotocol {
namespace {

std::optional<std::string> correlation_of(const Message& m) {
  if (const auto* r = m.get<Request>()) return r->correlation_id;
  if (const auto* r = m.get<Response>()) return r->correlation_id;
  if (const auto* e = m.get<Error>()) return e->correlation_id;
  return std::nullopt;
}

}  // namespace

Envelope make_envelope(From from, To to) {
  Envelope e;
  e.protocol = std::string(kProtocol);
  e.id = typed::new_uuid_v4();
  e.timestamp = typed::utc_now();
  e.from = std::move(from);
  e.to = std::move(to);
  return e;
}

To to_agent(std::string agent_id) { return To{std::move(agent_id), false, Json::object()}; }

Message make_hello(From from, To to, std::vector<std::string> features, std::string version) {
  Hello p;
  p.version = std::move(version);
  if (!features.empty()) p.features = std::move(features);
  return Message{make_envelope(std::move(from), std::move(to)), std::move(p)};
}

Message make_request(From from, To to, std::string action, std::string correlation_id, std::optional<Json> params,
                     std::optional<std::uint64_t> timeout_ms) {
  Request p;
  p.action = std::move(action);
  p.correlation_id = std::move(correlation_id);
  p.params = std::move(params);
  p.timeout = timeout_ms;
  return Message{make_envelope(std::move(from), std::move(to)), std::move(p)};
}

Message make_notify(From from, To to, Json body) {
  return Message{make_envelope(std::move(from), std::move(to)), Notify{std::move(body)}};
}

Message make_error(From from, To to, std::string code, std::string message, std::optional<std::string> correlation_id,
                   std::optional<Json> details) {
  Error p;
  p.correlation_id = std::move(correlation_id);
  p.code = std::move(code);
  p.message = std::move(message);
  p.details = std::move(details);
  return Message{make_envelope(std::move(from), std::move(to)), std::move(p)};
}

Message make_response(const Message& request, From self, std::string status, std::optional<Json> result) {
  Response p;
  p.correlation_id = correlation_of(request).value_or("");
  p.status = std::move(status);
  p.result = std::move(result);
  return Message{make_envelope(std::move(self), to_agent(request.envelope.from.agent_id)), std::move(p)};
}

Message make_error_reply(const Message& request, From self, std::string code, std::string message,
                         std::optional<Json> details) {
  return make_error(std::move(self), to_agent(request.envelope.from.agent_id), std::move(code), std::move(message),
                    correlation_of(request), std::move(details));
}

}  // namespace ac::proto::agentprotocol

#include "reference/agora/settings.hpp"

#include <set>

namespace ac::ref::agora {
namespace {

const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys = {"binding",
                                             "query_parameter",
                                             "max_frame_bytes",
                                             "max_agent_id_bytes",
                                             "max_open_streams_per_agent",
                                             "max_open_streams_total",
                                             "ended_streams_remembered",
                                             "max_pending_frames",
                                             "fast_path"};
  return keys;
}

// A size key: a positive integer.
std::size_t positive(const SectionReader& r, const char* key, std::size_t fallback) {
  const std::int64_t v = r.integer(key, static_cast<std::int64_t>(fallback));
  if (v < 1) {
    r.errors.push_back(r.prefix + key + ": must be at least 1");
    return fallback;
  }
  return static_cast<std::size_t>(v);
}

}  // namespace

Expected<Settings, std::string> read_settings(const HubContext& context) {
  const auto& section = context.config.section("agora");
  std::vector<std::string> errors;
  if (!section.is_object()) return unexpected(std::string("protocols.agora: expected an object"));
  // A misspelt key would otherwise silently configure nothing.
  for (const auto& [key, value] : section.items()) {
    if (known_keys().count(key) == 0) errors.push_back("protocols.agora." + key + ": unknown key");
  }
  SectionReader r{section, errors, "protocols.agora."};
  Settings s;
  const std::string binding = r.string("binding", "query");
  if (binding == "query") {
    s.binding = Binding::query;
  } else if (binding == "first-frame") {
    s.binding = Binding::first_frame;
  } else {
    errors.push_back("protocols.agora.binding: expected \"query\" or \"first-frame\", got \"" + binding + "\"");
  }
  s.query_parameter = r.string("query_parameter", "agent_id");
  if (s.query_parameter.empty()) errors.push_back("protocols.agora.query_parameter: must not be empty");
  s.max_frame_bytes = positive(r, "max_frame_bytes", context.config.max_message_bytes);
  s.max_agent_id_bytes = positive(r, "max_agent_id_bytes", s.max_agent_id_bytes);
  s.max_open_streams_per_agent = positive(r, "max_open_streams_per_agent", s.max_open_streams_per_agent);
  s.max_open_streams_total = positive(r, "max_open_streams_total", s.max_open_streams_total);
  s.ended_streams_remembered = positive(r, "ended_streams_remembered", s.ended_streams_remembered);
  s.max_pending_frames = positive(r, "max_pending_frames", s.max_pending_frames);
  s.fast_path = r.boolean("fast_path", s.fast_path);
  if (!errors.empty()) return unexpected(errors.front());

  const FaultSet& f = context.faults;
  Faults& x = s.faults;
  x.chunks_reorder = f.on("agora.chunks.reorder");
  x.coerce_wrong_types = f.on("agora.schema.coerce-wrong-types");
  x.chunks_drop_empty = f.on("agora.chunks.drop-empty");
  x.stream_buffer_until_end = f.on("agora.stream.buffer-until-end");
  x.stream_accept_after_end = f.on("agora.stream.accept-after-end");
  x.stream_accept_unknown = f.on("agora.stream.accept-unknown");
  x.registration_allow_hijack = f.on("agora.registration.allow-hijack");
  x.registration_refusal_unbinds = f.on("agora.registration.refusal-unbinds");
  x.binding_keep_after_disconnect = f.on("agora.binding.keep-after-disconnect");
  x.from_trust_client = f.on("agora.from.trust-client");
  x.forward_strip_extra = f.on("agora.forward.strip-extra");
  x.reply_as_message = f.on("agora.reply.as-message");
  x.routing_broadcast = f.on("agora.routing.broadcast");
  x.error_silent_unknown_recipient = f.on("agora.error.silent-unknown-recipient");
  x.error_no_stream_id = f.on("agora.error.no-stream-id");
  x.frame_close_on_invalid = f.on("agora.frame.close-on-invalid");
  x.planted_empty_chunk_elsewhere = f.on("agora.planted.deliver-to-wrong-agent-on-empty-chunk");
  x.planted_hang_double_end = f.on("agora.planted.hang-on-double-end");
  x.load_drop_one_in_n = f.on("agora.load.drop-one-in-n");
  x.load_reorder_under_contention = f.on("agora.load.reorder-under-contention");
  x.load_misdeliver_under_contention = f.on("agora.load.misdeliver-under-contention");
  for (const auto& name : f.names()) x.any = x.any || name.rfind("agora.", 0) == 0;
  return s;
}

}  // namespace ac::ref::agora

// Settings of the Agora relay: the `protocols.agora` section of the lobby configuration (every
// key, its default and why: reference/agora/README.md) and the faults of
// reference/agora/faults.json, read once into booleans so the relay never looks a name up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/util/expected.hpp"
#include "reference/core/hub.hpp"

namespace ac::ref::agora {

// How a connection tells the relay which agent it is (reading AG-1).
enum class Binding {
  query,        // the WebSocket URL's query parameter (default `?agent_id=`), bound at the upgrade
  first_frame,  // a first frame {"type":"register","agent_id":"..."} answered with {"type":"registered",...}
};

struct Faults {
  bool chunks_reorder = false;                 // agora.chunks.reorder
  bool coerce_wrong_types = false;             // agora.schema.coerce-wrong-types (reference/core/lenient_types.hpp)
  bool chunks_drop_empty = false;              // agora.chunks.drop-empty
  bool stream_buffer_until_end = false;        // agora.stream.buffer-until-end
  bool stream_accept_after_end = false;        // agora.stream.accept-after-end
  bool stream_accept_unknown = false;          // agora.stream.accept-unknown
  bool registration_allow_hijack = false;      // agora.registration.allow-hijack
  bool registration_refusal_unbinds = false;   // agora.registration.refusal-unbinds
  bool binding_keep_after_disconnect = false;  // agora.binding.keep-after-disconnect
  bool from_trust_client = false;              // agora.from.trust-client
  bool forward_strip_extra = false;            // agora.forward.strip-extra
  bool reply_as_message = false;               // agora.reply.as-message
  bool routing_broadcast = false;              // agora.routing.broadcast
  bool error_silent_unknown_recipient = false; // agora.error.silent-unknown-recipient
  bool error_no_stream_id = false;             // agora.error.no-stream-id
  bool frame_close_on_invalid = false;         // agora.frame.close-on-invalid
  bool planted_empty_chunk_elsewhere = false; // agora.planted.deliver-to-wrong-agent-on-empty-chunk (fuzzer proof)
  bool planted_hang_double_end = false;       // agora.planted.hang-on-double-end (fuzzer proof)
  // Load-only faults (kind "load"): they show only at rates no conformance case reaches, so the
  // kill matrix skips them and `agentconform load` is what catches them (tests/load/).
  bool load_drop_one_in_n = false;              // agora.load.drop-one-in-n
  bool load_reorder_under_contention = false;   // agora.load.reorder-under-contention
  bool load_misdeliver_under_contention = false;  // agora.load.misdeliver-under-contention
  bool any = false;                               // some agora.* fault is on (the fast path is off)
};

struct Settings {
  Binding binding = Binding::query;
  std::string query_parameter = "agent_id";
  std::size_t max_frame_bytes = 1024 * 1024;        // larger frames: close 1009 (network layer)
  std::size_t max_agent_id_bytes = 256;             // longer ids are refused at registration
  std::size_t max_open_streams_per_agent = 256;     // per sending connection; beyond: TOO_MANY_STREAMS
  std::size_t max_open_streams_total = 65536;       // whole relay; beyond: TOO_MANY_STREAMS
  std::size_t ended_streams_remembered = 1024;      // per connection, for STREAM_ENDED; older ones: UNKNOWN_STREAM
  std::size_t max_pending_frames = 1024;            // frames for a connection between its upgrade and its open
  // The send_chunk fast path (relay.cpp): on unless a fault is on; off only to compare it with
  // the codec path (tests/ref_agora/fast_path_test.cpp).
  bool fast_path = true;
  Faults faults;
};

// Reads `protocols.agora` (unknown keys and wrong types are errors naming the key) and the faults.
Expected<Settings, std::string> read_settings(const HubContext& context);

}  // namespace ac::ref::agora

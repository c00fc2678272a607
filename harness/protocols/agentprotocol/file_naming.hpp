// The AgentProtocol file-exchange naming convention (agentprotocol-0.1.md §Transport Bindings /
// File Exchange): `{from-agent-id}-{to-agent-id}-{timestamp}-{id}.json`, made exact.
//
// The spec's agent ids are standard base64 (AP-2), which contains '/' (a path separator) and
// '+', and its separator '-' also occurs in ISO timestamps and UUIDs. The reading chosen here
// (shared by the reference hub and the harness's dir: channel, documented in
// reference/agentprotocol/README.md):
//   - agent ids are spelled in base64url without padding ('+' -> '-', '/' -> '_', '=' dropped):
//     a 44-character key becomes 43 characters of [A-Za-z0-9_-]; any other byte of a non-key id
//     is percent-encoded (%2A for '*'), so every name is a portable file name;
//   - the timestamp is the message's ISO 8601 timestamp with '-' and ':' removed
//     ("2026-02-01T15:08:00.123Z" -> "20260201T150800.123Z"), so it holds no '-';
//   - the id is the message's UUID (36 characters).
// Parsing works from both ends: the from segment of a key is exactly 43 characters, the id is
// the last 36, the timestamp is what lies between the last two separators, and the to segment
// is the rest (it may contain '-', base64url does).
//
// Writers create `.<name>.tmp` and rename it, so a reader never sees half a file; readers skip
// names that do not end in `.json` (and so every temporary file).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ac::proto::agentprotocol {

// base64 agent id (or any id) -> its file-name spelling, and back.
std::string file_id(std::string_view agent_id);
std::string agent_id_from_file_id(std::string_view file_id);

// "2026-02-01T15:08:00.123Z" -> "20260201T150800.123Z"; other characters than [0-9A-Za-z.+]
// are dropped; empty when nothing usable remains or the result exceeds 40 characters.
std::string file_timestamp(std::string_view iso8601);

struct ExchangeName {
  std::string from;       // file-id spelling
  std::string to;         // file-id spelling
  std::string timestamp;  // compact spelling
  std::string id;         // UUID
};

// The file name of a message: from/to are agent ids (spelled with file_id here), the timestamp
// an ISO 8601 string (the current time is used when it has no usable compact form), the id a
// UUID (a fresh one when `id` is not 36 characters of [0-9a-fA-F-]).
std::string exchange_file_name(std::string_view from_agent_id, std::string_view to_agent_id, std::string_view timestamp,
                               std::string_view id);

// Parses a file name; nullopt when it does not follow the convention.
std::optional<ExchangeName> parse_exchange_name(std::string_view file_name);

}  // namespace ac::proto::agentprotocol

// The load marker (profile.hpp) and the fixed-width pieces the profiles build messages from:
// UUIDv4-shaped message ids derived from (run, lane, sequence) and millisecond UTC timestamps.
// Fixed widths keep every message of a lane the same size, so --message-size is exact.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "harness/load/profile.hpp"

namespace ac::load {

struct Marker {
  std::uint32_t lane = 0;
  std::uint64_t seq = 0;
  std::uint64_t t_ns = 0;  // intended send time, ns since the run's epoch
  std::size_t at = 0;      // offset of the marker in the frame
};

// Writes the 48 marker bytes (tag, run id, lane, seq, time) at `out`.
void write_marker(char* out, std::string_view tag, std::string_view run_id, std::uint32_t lane, std::uint64_t seq, std::uint64_t t_ns);
// The first marker with `tag` and this run's id in `frame`; nullopt when there is none or it is
// malformed (which a hostile relay could make: never trusted beyond its fixed fields).
std::optional<Marker> find_marker(std::string_view frame, std::string_view tag, std::string_view run_id);

// "RRRRRRRR-LLLL-4LLL-8SSS-SSSSSSSSSSSS": a valid UUIDv4 spelling, unique per (run, lane, seq).
void write_uuid(char* out36, std::string_view run_id, std::uint32_t lane, std::uint64_t seq);
std::string uuid_for(std::string_view run_id, std::uint32_t lane, std::uint64_t seq);
// "2026-02-01T15:08:00.123Z" (24 bytes) for now; cached per thread for the current second.
void write_utc_now(char* out24);

// 8 lower-case hex digits from a random source.
std::string new_run_id();

}  // namespace ac::load

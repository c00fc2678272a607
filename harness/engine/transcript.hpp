// The wire transcript of one case: every HTTP exchange, frame and close, with timestamps and
// direction, secrets redacted, size bounded. It is the evidence behind a verdict.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::engine {

struct TranscriptEntry {
  double t_ms = 0;          // since the case started
  std::string channel;      // agent name ("a"), or "http", or "harness"
  std::string direction;    // "out" (harness -> target), "in" (target -> harness), "note"
  std::string kind;         // http-request, http-response, connect, connected, refused, text, binary, close, violation, ping, pong, frame, raw, note
  std::string data;         // payload (UTF-8 text, or base64 for binary marked in kind)
  std::optional<int> code;  // HTTP status or close code
  bool truncated = false;
};

// The transcripts of all cases of one run together (results.json keeps them all): each case
// charges what it keeps when it ends; once the budget is spent, a case keeps only its first
// entries and a note saying how many were cut (docs/limits.md).
class TranscriptBudget {
 public:
  explicit TranscriptBudget(std::size_t bytes = 32u << 20) : left_(bytes), total_(bytes) {}
  // Takes up to `want` bytes; returns how many were granted.
  std::size_t take(std::size_t want);
  std::size_t total() const { return total_; }
  std::size_t cases_cut() const { return cut_.load(); }
  void count_cut() { ++cut_; }

 private:
  std::atomic<std::size_t> left_;
  std::size_t total_;
  std::atomic<std::size_t> cut_{0};
};

class Transcript {
 public:
  // Each entry costs its data plus kEntryOverhead bytes against max_bytes, so a flood of empty
  // frames is bounded too; at most max_entries entries, and ping/pong frames at most
  // kControlEntries per channel and direction (the rest are counted in a note).
  static constexpr std::size_t kEntryOverhead = 128;
  static constexpr std::size_t kControlEntries = 16;
  // Past the limits, up to kEndingReserve more entries that tell how a connection ended (close,
  // refused, error received), each cut to kEndingBytes.
  static constexpr std::size_t kEndingReserve = 32;
  static constexpr std::size_t kEndingBytes = 512;
  explicit Transcript(std::size_t max_bytes = 256 * 1024, std::size_t max_entry_bytes = 16 * 1024, std::size_t max_entries = 2000);

  void add(std::string channel, std::string direction, std::string kind, std::string data, std::optional<int> code = {});
  // A ping or pong that arrived `count` times in a row.
  void add_control(std::string channel, std::string direction, std::string kind, std::string data, std::uint64_t count);
  void note(std::string text) { add("harness", "note", "note", std::move(text)); }
  // Every later (and earlier) occurrence of `secret` is shown as "<redacted:label>".
  void redact(const std::string& secret, const std::string& label);

  std::vector<TranscriptEntry> entries() const;  // redacted copy
  std::size_t dropped() const;
  nlohmann::json to_json() const;
  // The same, charged to the run's budget: cut to what the budget grants, with a note.
  nlohmann::json to_json(TranscriptBudget* budget) const;

 private:
  std::string apply_redactions(std::string s) const;  // requires mutex_

  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::size_t max_bytes_, max_entry_bytes_, max_entries_, bytes_ = 0, dropped_ = 0, ending_kept_ = 0;
  std::map<std::string, std::uint64_t> control_seen_;  // "channel|direction|kind" -> frames
  std::vector<TranscriptEntry> entries_;
  std::vector<std::pair<std::string, std::string>> secrets_;
};

}  // namespace ac::engine

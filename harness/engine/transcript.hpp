// The wire transcript of one case: every HTTP exchange, frame and close, with timestamps and
// direction, secrets redacted, size bounded. It is the evidence behind a verdict.
#pragma once

#include <chrono>
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

class Transcript {
 public:
  explicit Transcript(std::size_t max_bytes = 256 * 1024, std::size_t max_entry_bytes = 16 * 1024);

  void add(std::string channel, std::string direction, std::string kind, std::string data, std::optional<int> code = {});
  void note(std::string text) { add("harness", "note", "note", std::move(text)); }
  // Every later (and earlier) occurrence of `secret` is shown as "<redacted:label>".
  void redact(const std::string& secret, const std::string& label);

  std::vector<TranscriptEntry> entries() const;  // redacted copy
  std::size_t dropped() const;
  nlohmann::json to_json() const;

 private:
  std::string apply_redactions(std::string s) const;  // requires mutex_

  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::size_t max_bytes_, max_entry_bytes_, bytes_ = 0, dropped_ = 0;
  std::vector<TranscriptEntry> entries_;
  std::vector<std::pair<std::string, std::string>> secrets_;
};

}  // namespace ac::engine

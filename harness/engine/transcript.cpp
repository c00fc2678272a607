#include "harness/engine/transcript.hpp"

#include "harness/json/strict_reader.hpp"
#include "harness/util/redact.hpp"

namespace ac::engine {
namespace {

// Cuts to at most n bytes without cutting a UTF-8 sequence in half.
void cut_utf8(std::string& data, std::size_t n) {
  data.resize(n);
  while (!data.empty() && (static_cast<unsigned char>(data.back()) & 0xC0) == 0x80) data.pop_back();
  if (!data.empty() && static_cast<unsigned char>(data.back()) >= 0xC0) data.pop_back();
}

}  // namespace

std::size_t TranscriptBudget::take(std::size_t want) {
  std::size_t left = left_.load();
  for (;;) {
    const std::size_t granted = std::min(left, want);
    if (left_.compare_exchange_weak(left, left - granted)) return granted;
  }
}

Transcript::Transcript(std::size_t max_bytes, std::size_t max_entry_bytes, std::size_t max_entries)
    : max_bytes_(max_bytes), max_entry_bytes_(max_entry_bytes), max_entries_(max_entries) {}

void Transcript::add_control(std::string channel, std::string direction, std::string kind, std::string data, std::uint64_t count) {
  const std::string key = channel + "|" + direction + "|" + kind;
  std::uint64_t before = 0;
  {
    std::lock_guard lock(mutex_);
    before = control_seen_[key];
    control_seen_[key] = before + count;
  }
  if (before >= kControlEntries) return;  // counted; to_json() says how many were not shown
  if (count > 1) data += " [" + std::to_string(count) + " in a row]";
  add(std::move(channel), std::move(direction), std::move(kind), std::move(data));
}

void Transcript::add(std::string channel, std::string direction, std::string kind, std::string data, std::optional<int> code) {
  TranscriptEntry e;
  e.t_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  e.channel = std::move(channel);
  e.direction = std::move(direction);
  e.kind = std::move(kind);
  e.code = code;
  data = ac::redact(data);  // before a cut could split a secret (registered values are hidden again when read)
  if (data.size() > max_entry_bytes_) {
    const std::size_t total = data.size();
    cut_utf8(data, max_entry_bytes_);
    data += " [truncated: " + std::to_string(total) + " bytes in all]";
    e.truncated = true;
  }
  e.data = std::move(data);
  std::lock_guard lock(mutex_);
  if (bytes_ + e.data.size() + kEntryOverhead > max_bytes_ || entries_.size() >= max_entries_) {
    // How a connection ended explains what came before it (a close for capacity after a case's
    // polls filled the transcript): it is kept past the limit, within a small reserve.
    const bool ending = e.direction == "in" && (e.kind == "close" || e.kind == "refused" || e.kind == "error");
    if (!ending || ending_kept_ >= kEndingReserve) {
      ++dropped_;
      return;
    }
    ++ending_kept_;
    if (e.data.size() > kEndingBytes) {
      cut_utf8(e.data, kEndingBytes);
      e.truncated = true;
    }
    entries_.push_back(std::move(e));
    return;
  }
  bytes_ += e.data.size() + kEntryOverhead;
  entries_.push_back(std::move(e));
}

void Transcript::redact(const std::string& secret, const std::string& label) {
  if (secret.size() < 4) return;  // too short to redact without mangling ordinary text
  std::lock_guard lock(mutex_);
  for (const auto& [s, l] : secrets_) {
    if (s == secret) return;
  }
  secrets_.emplace_back(secret, label);
}

std::string Transcript::apply_redactions(std::string s) const {
  for (const auto& [secret, label] : secrets_) {
    std::size_t pos = 0;
    while ((pos = s.find(secret, pos)) != std::string::npos) {
      const std::string replacement = "<redacted:" + label + ">";
      s.replace(pos, secret.size(), replacement);
      pos += replacement.size();
    }
  }
  return ac::redact(s);  // settings declared secret, echoed credentials, headers, JWTs (docs/limits.md)
}

std::vector<TranscriptEntry> Transcript::entries() const {
  std::lock_guard lock(mutex_);
  std::vector<TranscriptEntry> out = entries_;
  for (auto& e : out) e.data = apply_redactions(std::move(e.data));
  return out;
}

std::size_t Transcript::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

nlohmann::json Transcript::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : entries()) {
    nlohmann::json j = {{"t_ms", e.t_ms}, {"channel", e.channel}, {"direction", e.direction}, {"kind", e.kind}};
    // Frames from a hostile target may not be UTF-8: keep them representable in JSON.
    json::Utf8Problem problem{};
    if (json::find_encoding_problem(e.data, problem, /*nul_is_error=*/false)) {
      std::string clean;
      for (unsigned char c : e.data) clean += c < 0x80 ? static_cast<char>(c) : '?';
      j["data"] = clean;
      j["invalid_utf8"] = true;
    } else {
      j["data"] = e.data;
    }
    if (e.code) j["code"] = *e.code;
    if (e.truncated) j["truncated"] = true;
    out.push_back(std::move(j));
  }
  if (dropped() > 0) out.push_back({{"t_ms", 0}, {"channel", "harness"}, {"direction", "note"}, {"kind", "note"},
                                    {"data", std::to_string(dropped()) + " entries dropped: transcript size limit reached"}});
  std::map<std::string, std::uint64_t> control;
  {
    std::lock_guard lock(mutex_);
    control = control_seen_;
  }
  for (const auto& [key, n] : control) {
    if (n <= kControlEntries) continue;
    const auto bar = key.find('|'), bar2 = key.find('|', bar + 1);
    out.push_back({{"t_ms", 0}, {"channel", key.substr(0, bar)}, {"direction", "note"}, {"kind", "note"},
                   {"data", std::to_string(n) + " " + key.substr(bar2 + 1) + " frames (" + key.substr(bar + 1, bar2 - bar - 1) +
                                ") in all; only the first ones are shown (control frame limit)"}});
  }
  return out;
}

nlohmann::json Transcript::to_json(TranscriptBudget* budget) const {
  nlohmann::json all = to_json();
  if (budget == nullptr) return all;
  std::size_t want = 0;
  std::vector<std::size_t> cost;
  for (const auto& e : all) {
    cost.push_back(e.value("data", std::string()).size() + kEntryOverhead);
    want += cost.back();
  }
  const std::size_t granted = budget->take(want);
  if (granted == want) return all;
  // Keep the first entries that fit the grant (at least the opening ones, which say what the
  // case did), then say how much was cut.
  nlohmann::json kept = nlohmann::json::array();
  std::size_t used = 0, i = 0;
  for (; i < all.size() && used + cost[i] <= std::max<std::size_t>(granted, 4096); ++i) {
    used += cost[i];
    kept.push_back(std::move(all[i]));
  }
  budget->count_cut();
  kept.push_back({{"t_ms", 0}, {"channel", "harness"}, {"direction", "note"}, {"kind", "note"}, {"truncated", true},
                  {"data", std::to_string(all.size() - i) + " entries cut: the run's transcript budget (" + std::to_string(budget->total()) +
                               " bytes for all cases) is spent"}});
  return kept;
}

}  // namespace ac::engine

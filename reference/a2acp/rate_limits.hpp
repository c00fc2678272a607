// The broker's rate limits (a2acp-1.0.md §Performance Requirements / Rate Limits): per agent
// (1000 messages/minute), per collaboration (100/minute) and global (10,000/minute), each a
// token bucket holding `limit` messages that refills continuously at `limit` per window, so a
// burst of `limit` passes and the next is refused with the time until one more is allowed
// (error.retry_after, whole seconds, at least 1). Pure arithmetic over the caller's clock, no
// timers. Buckets are keyed by agent id (or connection, before the agent is known) and
// collaboration id; the maps are bounded: when one exceeds its cap, buckets that are full again
// (idle long enough to have forgotten everything) are dropped, and if none is, the oldest key is.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace ac::ref::a2acp {

using TimePoint = std::chrono::system_clock::time_point;

class TokenBucket {
 public:
  TokenBucket() = default;
  TokenBucket(std::size_t limit, std::chrono::milliseconds window, TimePoint now);  // limit 0: unlimited

  bool available(TimePoint now) const;
  void take(TimePoint now);
  std::chrono::milliseconds retry_after(TimePoint now) const;  // until one message is allowed
  bool full(TimePoint now) const;

 private:
  double level(TimePoint now) const;
  std::size_t limit_ = 0;
  std::chrono::milliseconds window_{60000};
  double tokens_ = 0;
  TimePoint last_{};
};

class RateLimits {
 public:
  RateLimits(std::size_t per_agent, std::size_t per_collaboration, std::size_t global, std::chrono::milliseconds window,
             std::size_t max_keys);

  struct Refusal {
    std::chrono::milliseconds wait{1};
    const char* limit = "per-agent";  // per-agent | global | per-collaboration
  };
  // One message from `agent_key`: counts against the agent's and the global bucket (both or
  // neither). nullopt when allowed.
  std::optional<Refusal> message(const std::string& agent_key, TimePoint now);
  // One message routed within `collaboration_id`.
  std::optional<Refusal> collaboration(const std::string& collaboration_id, TimePoint now);
  void forget_collaboration(const std::string& collaboration_id) { collaborations_.erase(collaboration_id); }

  std::size_t tracked() const { return agents_.size() + collaborations_.size(); }

 private:
  TokenBucket& bucket(std::map<std::string, TokenBucket>& map, const std::string& key, std::size_t limit, TimePoint now);

  std::size_t per_agent_, per_collaboration_;
  std::chrono::milliseconds window_;
  std::size_t max_keys_;
  TokenBucket global_;
  std::map<std::string, TokenBucket> agents_, collaborations_;
};

// Whole seconds for error.retry_after: rounded up, at least 1.
std::uint64_t retry_seconds(std::chrono::milliseconds wait);

}  // namespace ac::ref::a2acp

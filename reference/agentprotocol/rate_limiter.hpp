// Per-sender rate limiting of the reference agent (agentprotocol-0.1.md §Security Considerations
// 3 "Rate limit incoming messages"; error RATE_LIMITED): a token bucket per verified sender
// (from.agentId, after the signature check, so a sender cannot spend another agent's budget).
// `burst` messages may arrive at once, refilled at `per_second`. Bounded: at most `max_senders`
// buckets; when full, the buckets that have refilled completely (idle senders) are dropped,
// and if none has, the new sender is limited (fail closed) until one does. Not thread-safe: the
// agent calls it under its mutex.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <unordered_map>

namespace ac::ref::agentprotocol {

class RateLimiter {
 public:
  using TimePoint = std::chrono::system_clock::time_point;  // HubContext::clock (a manual clock in fuzzers)
  RateLimiter(double burst, double per_second, std::size_t max_senders = 10000);

  // True when the message may pass (a token is taken); false: RATE_LIMITED.
  bool allow(const std::string& sender, TimePoint now);
  // Time until the sender has a token again (0 when it has one).
  std::chrono::milliseconds retry_after(const std::string& sender, TimePoint now) const;
  std::size_t senders() const { return buckets_.size(); }

 private:
  struct Bucket {
    double tokens = 0;
    TimePoint updated;
  };
  double refill(const Bucket& b, TimePoint now) const;
  void evict_idle(TimePoint now);

  double burst_, per_second_;
  std::size_t max_senders_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace ac::ref::agentprotocol

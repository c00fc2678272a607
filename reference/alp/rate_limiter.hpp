// Per-agent message rate limit of the ALP lobby (§11 "message rate limits per agent"): a token
// bucket holding `capacity` messages that refills continuously at capacity per `window`, so a
// burst of `capacity` messages passes, the next one is refused, and the agent gets one message
// back every window/capacity. Pure arithmetic over the caller's clock: no timers, so the
// in-process fuzzers can drive it with a manual clock.
#pragma once

#include <chrono>
#include <cstddef>

namespace ac::ref::alp {

class TokenBucket {
 public:
  using TimePoint = std::chrono::system_clock::time_point;

  TokenBucket() = default;
  // capacity 0 disables the limit (take() always succeeds).
  TokenBucket(std::size_t capacity, std::chrono::milliseconds window, TimePoint now);

  // Takes one message's token; false when the bucket is empty.
  bool take(TimePoint now);
  // How long until take() can succeed again (0 when it can now).
  std::chrono::milliseconds retry_after(TimePoint now) const;

  std::size_t capacity() const { return capacity_; }
  std::chrono::milliseconds window() const { return window_; }

 private:
  double level(TimePoint now) const;

  std::size_t capacity_ = 0;
  std::chrono::milliseconds window_{1000};
  double tokens_ = 0;
  TimePoint last_{};
};

}  // namespace ac::ref::alp

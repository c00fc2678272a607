// Token buckets per sender (see rate_limiter.hpp).
#include "reference/agentprotocol/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace ac::ref::agentprotocol {

RateLimiter::RateLimiter(double burst, double per_second, std::size_t max_senders)
    : burst_(std::max(1.0, burst)), per_second_(std::max(0.0, per_second)), max_senders_(std::max<std::size_t>(1, max_senders)) {}

double RateLimiter::refill(const Bucket& b, TimePoint now) const {
  const double elapsed = std::chrono::duration<double>(now - b.updated).count();
  return std::min(burst_, b.tokens + std::max(0.0, elapsed) * per_second_);
}

void RateLimiter::evict_idle(TimePoint now) {
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    if (refill(it->second, now) >= burst_) {
      it = buckets_.erase(it);
    } else {
      ++it;
    }
  }
}

bool RateLimiter::allow(const std::string& sender, TimePoint now) {
  auto it = buckets_.find(sender);
  if (it == buckets_.end()) {
    if (buckets_.size() >= max_senders_) evict_idle(now);
    if (buckets_.size() >= max_senders_) return false;
    it = buckets_.emplace(sender, Bucket{burst_, now}).first;
  }
  Bucket& b = it->second;
  b.tokens = refill(b, now);
  b.updated = now;
  if (b.tokens < 1.0) return false;
  b.tokens -= 1.0;
  return true;
}

std::chrono::milliseconds RateLimiter::retry_after(const std::string& sender, TimePoint now) const {
  auto it = buckets_.find(sender);
  if (it == buckets_.end()) return std::chrono::milliseconds(0);
  const double tokens = refill(it->second, now);
  if (tokens >= 1.0) return std::chrono::milliseconds(0);
  if (per_second_ <= 0) return std::chrono::milliseconds(60000);
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil((1.0 - tokens) / per_second_ * 1000.0)));
}

}  // namespace ac::ref::agentprotocol

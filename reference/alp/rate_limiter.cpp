#include "reference/alp/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace ac::ref::alp {

TokenBucket::TokenBucket(std::size_t capacity, std::chrono::milliseconds window, TimePoint now)
    : capacity_(capacity), window_(window.count() > 0 ? window : std::chrono::milliseconds(1)),
      tokens_(static_cast<double>(capacity)), last_(now) {}

double TokenBucket::level(TimePoint now) const {
  // A clock that steps backwards (system_clock) refills nothing rather than draining the bucket.
  const double elapsed_ms = std::max(0.0, std::chrono::duration<double, std::milli>(now - last_).count());
  const double rate = static_cast<double>(capacity_) / static_cast<double>(window_.count());  // tokens per ms
  return std::min(static_cast<double>(capacity_), tokens_ + elapsed_ms * rate);
}

bool TokenBucket::take(TimePoint now) {
  if (capacity_ == 0) return true;
  tokens_ = level(now);
  if (now > last_) last_ = now;
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

std::chrono::milliseconds TokenBucket::retry_after(TimePoint now) const {
  if (capacity_ == 0) return std::chrono::milliseconds(0);
  const double missing = 1.0 - level(now);
  if (missing <= 0) return std::chrono::milliseconds(0);
  const double rate = static_cast<double>(capacity_) / static_cast<double>(window_.count());
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(missing / rate)));
}

}  // namespace ac::ref::alp

// Token buckets for the broker's three rate limits (see rate_limits.hpp).
#include "reference/a2acp/rate_limits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ac::ref::a2acp {

TokenBucket::TokenBucket(std::size_t limit, std::chrono::milliseconds window, TimePoint now)
    : limit_(limit), window_(window.count() > 0 ? window : std::chrono::milliseconds(1)),
      tokens_(static_cast<double>(limit)), last_(now) {}

double TokenBucket::level(TimePoint now) const {
  // A clock stepping backwards refills nothing rather than draining the bucket.
  const double elapsed = std::max(0.0, std::chrono::duration<double, std::milli>(now - last_).count());
  const double rate = static_cast<double>(limit_) / static_cast<double>(window_.count());
  return std::min(static_cast<double>(limit_), tokens_ + elapsed * rate);
}

bool TokenBucket::available(TimePoint now) const { return limit_ == 0 || level(now) >= 1.0; }

void TokenBucket::take(TimePoint now) {
  if (limit_ == 0) return;
  tokens_ = level(now) - 1.0;
  if (now > last_) last_ = now;
}

bool TokenBucket::full(TimePoint now) const { return limit_ == 0 || level(now) >= static_cast<double>(limit_); }

std::chrono::milliseconds TokenBucket::retry_after(TimePoint now) const {
  if (limit_ == 0) return std::chrono::milliseconds(0);
  const double missing = 1.0 - level(now);
  if (missing <= 0) return std::chrono::milliseconds(0);
  const double rate = static_cast<double>(limit_) / static_cast<double>(window_.count());
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(missing / rate)));
}

RateLimits::RateLimits(std::size_t per_agent, std::size_t per_collaboration, std::size_t global,
                       std::chrono::milliseconds window, std::size_t max_keys)
    : per_agent_(per_agent), per_collaboration_(per_collaboration), window_(window), max_keys_(std::max<std::size_t>(max_keys, 1)),
      global_(global, window, std::chrono::system_clock::now()) {}

TokenBucket& RateLimits::bucket(std::map<std::string, TokenBucket>& map, const std::string& key, std::size_t limit, TimePoint now) {
  auto it = map.find(key);
  if (it != map.end()) return it->second;
  if (map.size() >= max_keys_) {
    for (auto i = map.begin(); i != map.end();) i = i->second.full(now) ? map.erase(i) : std::next(i);
    if (map.size() >= max_keys_) map.erase(map.begin());
  }
  return map.emplace(key, TokenBucket(limit, window_, now)).first->second;
}

std::optional<RateLimits::Refusal> RateLimits::message(const std::string& agent_key, TimePoint now) {
  TokenBucket& agent = bucket(agents_, agent_key, per_agent_, now);
  if (!agent.available(now)) return Refusal{std::max(agent.retry_after(now), std::chrono::milliseconds(1)), "per-agent"};
  if (!global_.available(now)) return Refusal{std::max(global_.retry_after(now), std::chrono::milliseconds(1)), "global"};
  agent.take(now);
  global_.take(now);
  return std::nullopt;
}

std::optional<RateLimits::Refusal> RateLimits::collaboration(const std::string& collaboration_id, TimePoint now) {
  TokenBucket& b = bucket(collaborations_, collaboration_id, per_collaboration_, now);
  if (!b.available(now)) return Refusal{std::max(b.retry_after(now), std::chrono::milliseconds(1)), "per-collaboration"};
  b.take(now);
  return std::nullopt;
}

std::uint64_t retry_seconds(std::chrono::milliseconds wait) {
  const auto s = (wait.count() + 999) / 1000;
  return static_cast<std::uint64_t>(std::max<std::int64_t>(1, s));
}

}  // namespace ac::ref::a2acp

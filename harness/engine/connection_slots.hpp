// The connections the parallel cases of a run may hold at once (run.cpp).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace ac::engine {

// A deployment's connection cap shared by the parallel cases: a case holds one slot per agent it
// declares (each agent keeps at most one connection open at a time) while it runs. The cap is the
// declared one (limits.connections), or none; a case the target refused for capacity lowers it to
// three quarters of what was in use when that case started, once per round of cases started
// under one cap (the cases refused together lower it once), so a run that meets an undeclared
// cap keeps under it after the first refusals instead of having every later case refused too.
class ConnectionSlots {
 public:
  struct Held {
    std::size_t n = 0;
    std::uint64_t round = 0;
    std::size_t in_use = 0;  // with this case's slots
  };
  explicit ConnectionSlots(std::size_t cap) : cap_(cap) {}
  Held acquire(std::size_t agents) {
    std::unique_lock lock(mutex_);
    Held h;
    h.n = std::max<std::size_t>(agents, 1);
    if (cap_ != 0) h.n = std::min(h.n, cap_);
    freed_.wait(lock, [&] { return cap_ == 0 || used_ + h.n <= cap_ || used_ == 0; });
    used_ += h.n;
    h.round = round_;
    h.in_use = used_;
    return h;
  }
  void release(const Held& h) {
    {
      std::lock_guard lock(mutex_);
      used_ -= h.n;
    }
    freed_.notify_all();
  }
  void lower(const Held& h) {
    std::lock_guard lock(mutex_);
    if (h.round != round_) return;
    const std::size_t to = std::max<std::size_t>(1, h.in_use * 3 / 4);
    if (cap_ != 0 && cap_ <= to) return;
    cap_ = to;
    learned_ = to;
    ++round_;
  }
  std::size_t learned() const {
    std::lock_guard lock(mutex_);
    return learned_;
  }

 private:
  std::size_t cap_, used_ = 0, learned_ = 0;
  std::uint64_t round_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
};

}  // namespace ac::engine

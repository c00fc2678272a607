// Keeps a run's HTTP requests and WebSocket upgrades to a target under its declared rate
// (target.json limits.requests_per_second), across every case at once: each request takes the
// next free slot of an evenly spaced schedule and waits for it.
#pragma once

#include <chrono>
#include <mutex>
#include <thread>

namespace ac::engine {

class RequestPacer {
 public:
  explicit RequestPacer(double per_second)
      : interval_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / per_second))) {}

  // Waits until this request may go.
  void wait() {
    Clock::time_point slot;
    {
      std::lock_guard lock(mutex_);
      const auto now = Clock::now();
      next_ = std::max(next_, now);
      slot = next_;
      next_ += interval_;
    }
    std::this_thread::sleep_until(slot);
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::duration interval_;
  std::mutex mutex_;
  Clock::time_point next_{};
};

}  // namespace ac::engine

// A log-bucketed latency histogram in the manner of HdrHistogram: 32 sub-buckets per power of
// two, so any value is placed within 1/32 (3.1 %) of its true value, from 1 ns to 2^63 ns, in a
// fixed 15 KiB whatever the run's length (a one-hour soak records as cheaply as a second).
//
// Recording is one relaxed atomic increment, so the I/O threads record while the progress and
// snapshot thread reads (Snapshot) without a lock; figures are taken from snapshots.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

namespace ac::load {

inline constexpr int kSubBucketBits = 5;
inline constexpr std::size_t kSubBuckets = std::size_t{1} << kSubBucketBits;
inline constexpr std::size_t kBuckets = kSubBuckets + (64 - kSubBucketBits) * kSubBuckets;

// Index of the bucket holding `ns`, and the range of values a bucket stands for.
std::size_t bucket_of(std::uint64_t ns);
std::uint64_t bucket_low(std::size_t index);   // smallest value of the bucket
std::uint64_t bucket_high(std::size_t index);  // largest value of the bucket

// A copy of the counts, for arithmetic: percentiles, intervals (a - b), merging (a += b).
struct Snapshot {
  std::vector<std::uint64_t> counts = std::vector<std::uint64_t>(kBuckets, 0);
  std::uint64_t count = 0;
  std::uint64_t max_ns = 0;
  std::uint64_t sum_ns = 0;  // for the mean (wraps after 584 years of summed latency)

  // The value at quantile q (0..1): the highest value of the bucket holding it, clamped to the
  // largest value recorded. 0 when empty.
  std::uint64_t quantile(double q) const;
  double mean_ns() const { return count == 0 ? 0.0 : static_cast<double>(sum_ns) / static_cast<double>(count); }
  Snapshot& operator+=(const Snapshot& other);
  // The values recorded after `earlier` was taken (max_ns is the later snapshot's).
  Snapshot since(const Snapshot& earlier) const;
};

class Histogram {
 public:
  void record(std::uint64_t ns) {
    counts_[bucket_of(ns)].fetch_add(1, std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(ns, std::memory_order_relaxed);
    std::uint64_t seen = max_.load(std::memory_order_relaxed);
    while (ns > seen && !max_.compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {
    }
  }
  // Adds this histogram's counts to `out`.
  void add_to(Snapshot& out) const;

 private:
  std::array<std::atomic<std::uint64_t>, kBuckets> counts_{};
  std::atomic<std::uint64_t> count_{0}, sum_{0}, max_{0};
};

}  // namespace ac::load

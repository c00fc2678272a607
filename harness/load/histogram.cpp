#include "harness/load/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace ac::load {

std::size_t bucket_of(std::uint64_t ns) {
  if (ns < kSubBuckets) return static_cast<std::size_t>(ns);
  const int e = 63 - std::countl_zero(ns);  // >= kSubBucketBits
  const std::uint64_t sub = (ns >> (e - kSubBucketBits)) & (kSubBuckets - 1);
  return kSubBuckets + static_cast<std::size_t>(e - kSubBucketBits) * kSubBuckets + static_cast<std::size_t>(sub);
}

std::uint64_t bucket_low(std::size_t index) {
  if (index < kSubBuckets) return index;
  const std::size_t e = (index - kSubBuckets) / kSubBuckets + kSubBucketBits;
  const std::uint64_t sub = (index - kSubBuckets) % kSubBuckets;
  return (kSubBuckets + sub) << (e - kSubBucketBits);
}

std::uint64_t bucket_high(std::size_t index) {
  if (index < kSubBuckets) return index;
  const std::size_t e = (index - kSubBuckets) / kSubBuckets + kSubBucketBits;
  return bucket_low(index) + ((std::uint64_t{1} << (e - kSubBucketBits)) - 1);
}

std::uint64_t Snapshot::quantile(double q) const {
  if (count == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // The rank of the value (1-based): the smallest value with at least q of the values at or below it.
  auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count)));
  rank = std::clamp<std::uint64_t>(rank, 1, count);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    seen += counts[i];
    if (seen >= rank) return std::min(bucket_high(i), max_ns);
  }
  return max_ns;
}

Snapshot& Snapshot::operator+=(const Snapshot& other) {
  for (std::size_t i = 0; i < kBuckets; ++i) counts[i] += other.counts[i];
  count += other.count;
  sum_ns += other.sum_ns;
  max_ns = std::max(max_ns, other.max_ns);
  return *this;
}

Snapshot Snapshot::since(const Snapshot& earlier) const {
  Snapshot out;
  for (std::size_t i = 0; i < kBuckets; ++i) out.counts[i] = counts[i] - std::min(counts[i], earlier.counts[i]);
  out.count = count - std::min(count, earlier.count);
  out.sum_ns = sum_ns - std::min(sum_ns, earlier.sum_ns);
  // The largest value of the interval is not known exactly: the largest bucket it used bounds it.
  out.max_ns = 0;
  for (std::size_t i = kBuckets; i-- > 0;) {
    if (out.counts[i] != 0) {
      out.max_ns = std::min(bucket_high(i), max_ns);
      break;
    }
  }
  return out;
}

void Histogram::add_to(Snapshot& out) const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < kBuckets; ++i) {
    const std::uint64_t c = counts_[i].load(std::memory_order_relaxed);
    out.counts[i] += c;
    n += c;
  }
  // The bucket counts were read one by one while recording went on: count is their sum, so a
  // snapshot is always consistent with itself.
  out.count += n;
  out.sum_ns += sum_.load(std::memory_order_relaxed);
  out.max_ns = std::max(out.max_ns, max_.load(std::memory_order_relaxed));
}

}  // namespace ac::load

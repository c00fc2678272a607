// Delivery accounting of one lane (an ordered flow of messages from one sender to one receiver:
// a stream of an Agora pair, an HTTP connection of a Chopsticks lane, ...). The sender numbers
// its messages 0, 1, 2, ...; the receiver's ledger classifies each arrival:
//   first arrival, in order        -> delivered
//   first arrival after a later one -> delivered and reordered
//   seen before                    -> duplicated (not delivered again)
// and at the end lost = sent - delivered. Duplicates are told apart from late first arrivals
// within a window of the last kWindow sequence numbers (a bitmap of 512 bytes per lane); an
// arrival older than the window cannot be checked and is counted as reordered and as
// `unverifiable`, never silently as delivered twice.
//
// One writer (the receiver's I/O thread); the counters are atomics so the snapshot thread reads
// them while the run goes on.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace ac::load {

class Ledger {
 public:
  static constexpr std::uint64_t kWindow = 4096;

  enum class Arrival { in_order, reordered, duplicate };
  Arrival arrive(std::uint64_t seq);

  std::uint64_t delivered() const { return delivered_.load(std::memory_order_relaxed); }
  std::uint64_t duplicated() const { return duplicated_.load(std::memory_order_relaxed); }
  std::uint64_t reordered() const { return reordered_.load(std::memory_order_relaxed); }
  std::uint64_t unverifiable() const { return unverifiable_.load(std::memory_order_relaxed); }
  // 1 + the highest sequence number seen (how far the sender is known to have got).
  std::uint64_t high() const { return high_; }

 private:
  static void bump(std::atomic<std::uint64_t>& c) { c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  bool test(std::uint64_t seq) const { return (bits_[(seq % kWindow) / 64] >> (seq % 64)) & 1u; }
  void set(std::uint64_t seq) { bits_[(seq % kWindow) / 64] |= std::uint64_t{1} << (seq % 64); }
  void clear(std::uint64_t seq) { bits_[(seq % kWindow) / 64] &= ~(std::uint64_t{1} << (seq % 64)); }

  std::uint64_t high_ = 0;  // sequence numbers [high_ - kWindow, high_) are tracked by bits_
  std::array<std::uint64_t, kWindow / 64> bits_{};
  std::atomic<std::uint64_t> delivered_{0}, duplicated_{0}, reordered_{0}, unverifiable_{0};
};

}  // namespace ac::load

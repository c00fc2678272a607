#include "harness/load/ledger.hpp"

namespace ac::load {

Ledger::Arrival Ledger::arrive(std::uint64_t seq) {
  if (seq >= high_) {
    // Newer than anything seen: the numbers it skipped enter the window as "not yet arrived".
    if (seq - high_ >= kWindow) {
      bits_.fill(0);
    } else {
      for (std::uint64_t s = high_; s < seq; ++s) clear(s);
    }
    clear(seq);
    set(seq);
    high_ = seq + 1;
    bump(delivered_);
    return Arrival::in_order;
  }
  if (high_ - seq > kWindow) {  // too old for the window: cannot tell a duplicate from a late first arrival
    bump(unverifiable_);
    bump(reordered_);
    bump(delivered_);
    return Arrival::reordered;
  }
  if (test(seq)) {
    bump(duplicated_);
    return Arrival::duplicate;
  }
  set(seq);
  bump(reordered_);
  bump(delivered_);
  return Arrival::reordered;
}

}  // namespace ac::load

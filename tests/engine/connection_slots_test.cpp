// The run's connection slots: a declared cap holds, and an undeclared one is learned from the
// target's capacity refusals, once per round of cases started under one cap.
#include "harness/engine/connection_slots.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace ac::engine {
namespace {

TEST(ConnectionSlots, UncappedCountsWhatIsInUse) {
  ConnectionSlots slots(0);
  const auto a = slots.acquire(3);
  const auto b = slots.acquire(0);  // a case without agents still holds one
  EXPECT_EQ(a.in_use, 3u);
  EXPECT_EQ(b.in_use, 4u);
  EXPECT_EQ(slots.learned(), 0u);
  slots.release(a);
  slots.release(b);
}

TEST(ConnectionSlots, ARefusalLowersTheCapOncePerRound) {
  ConnectionSlots slots(0);
  std::vector<ConnectionSlots::Held> held;
  for (int i = 0; i < 40; ++i) held.push_back(slots.acquire(1));
  // Cases 21..40 were refused together: the first report lowers the cap to 3/4 of what was in
  // use when it started, the others started under the old cap and change nothing.
  for (int i = 20; i < 40; ++i) slots.lower(held[i]);
  EXPECT_EQ(slots.learned(), 15u);  // 21 in use * 3/4
  for (auto& h : held) slots.release(h);
  // A case started under the new cap and refused again lowers it again.
  const auto next = slots.acquire(1);
  slots.lower(next);
  EXPECT_EQ(slots.learned(), 1u);  // 1 in use * 3/4, at least 1
  slots.release(next);
}

TEST(ConnectionSlots, ALearnedCapHolds) {
  ConnectionSlots slots(0);
  auto first = slots.acquire(4);
  slots.lower(first);  // cap 3
  slots.release(first);
  const auto a = slots.acquire(2);
  std::atomic<bool> second_in{false};
  std::thread t([&] {
    const auto b = slots.acquire(2);  // 2 + 2 > 3: waits for a
    second_in = true;
    slots.release(b);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(second_in.load());  // (a wait that ended early would show here; a slow thread cannot make this fail)
  slots.release(a);
  t.join();
  EXPECT_TRUE(second_in.load());
}

TEST(ConnectionSlots, ADeclaredCapIsNotRaisedByALaterRefusal) {
  ConnectionSlots slots(2);
  const auto a = slots.acquire(5);  // clamped to the cap
  EXPECT_EQ(a.n, 2u);
  slots.lower(a);  // 2 * 3/4 = 1
  EXPECT_EQ(slots.learned(), 1u);
  slots.release(a);
}

}  // namespace
}  // namespace ac::engine

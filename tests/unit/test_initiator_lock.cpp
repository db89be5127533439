// The initiator's lock must exclude the coalescing timer from the
// application's sections in every mode, including the biased one where the
// application takes no atomic read-modify-write.  Both sides update one
// plain counter in two steps with a pause between: any overlap loses an
// update, and the total comes out short.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "transports/ofi/initiator_lock.hpp"

using armci::transport::InitiatorLock;

namespace {

struct Counts {
  long app = 0, visits = 0, counter = 0;
};

void bump(long& counter, int pause = 20) {
  const long v = counter;
  for (int i = 0; i < pause; ++i) std::atomic_signal_fence(std::memory_order_seq_cst);  // keeps the pause
  counter = v + 1;
}

// The application does at least `rounds` sections, and goes on until the
// timer got in 50 times (10 s at most); the timer enters whenever it can,
// and half of its visits let go and take the lock back in the middle (as
// OfiImpl::unlocked does when a send must wait).
// Paced: the timer comes every 20 us and some application sections are
// long (they outlast the barrier: a timer that skipped the `busy` check
// would land inside them).  Unpaced: short sections and a timer that comes
// back after a yield (a missing barrier lets both in through the store
// buffer).
Counts race(InitiatorLock& lock, long rounds, bool paced = true) {
  Counts c;
  std::atomic<bool> done{false};
  std::atomic<long> visited{0};
  std::thread timer([&] {
    while (!done.load(std::memory_order_relaxed)) {
      // Paced like the real timer: each visit's barrier interrupts the
      // application's CPU.
      if (paced) std::this_thread::sleep_for(std::chrono::microseconds(20));
      if (!lock.visitor_try_lock()) {
        if (!paced) std::this_thread::yield();
        continue;
      }
      EXPECT_TRUE(InitiatorLock::visiting());
      bump(c.counter);
      if (c.visits % 2) {
        lock.visitor_unlock();
        std::this_thread::yield();
        lock.visitor_lock();
      }
      bump(c.counter);
      ++c.visits;
      lock.visitor_unlock();
      EXPECT_FALSE(InitiatorLock::visiting());
      visited.fetch_add(1, std::memory_order_relaxed);
      if (!paced) std::this_thread::yield();
    }
  });
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (long i = 0; i < rounds || visited.load(std::memory_order_relaxed) < 50; ++i) {
    lock.lock();
    bump(c.counter, paced && i % 4 == 0 ? 4000 : 20);
    lock.unlock();
    ++c.app;
    if (i % 64 == 0) {
      std::this_thread::yield();  // two cores, oversubscribed: let the timer run
      if (std::chrono::steady_clock::now() > give_up) break;
    }
  }
  done = true;
  timer.join();
  return c;
}

// The lock's total after a race: every section of both sides counted.
void expect_exclusion(InitiatorLock& lock, long rounds, bool paced) {
  const Counts c = race(lock, rounds, paced);
  EXPECT_GE(c.visits, 50) << "the timer must get in between the application's sections";
  EXPECT_EQ(c.counter, c.app + 2 * c.visits);
}

bool biased(InitiatorLock& lock) {
  lock.set_timer(true);
  return lock.mode() == InitiatorLock::Mode::Biased;
}

}  // namespace

TEST(InitiatorLock, ModesFollowThreadLevelAndTimer) {
  InitiatorLock lock;
  EXPECT_EQ(lock.mode(), InitiatorLock::Mode::None);
  EXPECT_FALSE(lock.locking());
  lock.set_app_threads(true);
  EXPECT_EQ(lock.mode(), InitiatorLock::Mode::Mutex);
  lock.set_timer(true);
  EXPECT_EQ(lock.mode(), InitiatorLock::Mode::Mutex);  // several application threads: always the mutex
  lock.set_app_threads(false);
  EXPECT_NE(lock.mode(), InitiatorLock::Mode::None);
  lock.set_timer(false);
  EXPECT_EQ(lock.mode(), InitiatorLock::Mode::None);
}

TEST(InitiatorLock, TimerNeverOverlapsTheApplicationBiased) {
  InitiatorLock lock;
  if (!biased(lock)) GTEST_SKIP() << "no membarrier here (or a ThreadSanitizer build)";
  expect_exclusion(lock, 200000, true);
}

TEST(InitiatorLock, TimerBackToBackNeverOverlapsTheApplicationBiased) {
  InitiatorLock lock;
  if (!biased(lock)) GTEST_SKIP() << "no membarrier here (or a ThreadSanitizer build)";
  expect_exclusion(lock, 400000, false);
}

TEST(InitiatorLock, TimerNeverOverlapsTheApplicationMutex) {
  InitiatorLock lock;
  lock.set_app_threads(true);
  lock.set_timer(true);
  expect_exclusion(lock, 200000, true);
}

// Switching modes between sections (ARMCI_Init_thread raising the level
// while the timer runs) keeps the exclusion.
TEST(InitiatorLock, ModeChangeBetweenSectionsKeepsExclusion) {
  InitiatorLock lock;
  lock.set_timer(true);
  expect_exclusion(lock, 100000, true);
  lock.set_app_threads(true);
  expect_exclusion(lock, 100000, true);
}

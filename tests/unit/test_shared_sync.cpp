// Node-shared synchronisation objects used by threads of one process (the
// futex words behave the same across processes).
#include <gtest/gtest.h>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "common/shared_sync.hpp"

using armci::SharedMutex;

namespace {

// Wakes whoever sleeps on the mutex word without releasing it; returns how
// many sleepers the kernel woke.
long wake_without_release(SharedMutex& m) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(&m.state), FUTEX_WAKE, 1, nullptr,
                 nullptr, 0);
}

}  // namespace

// A waiter that is woken thousands of times while the lock stays taken (what
// a busy holder's hand-offs look like) has waited milliseconds, not
// "wakes x slice": it must not report the default 600 s timeout.
TEST(SharedSync, ManyWakesAreNotATimeout) {
  SharedMutex m;
  m.lock();
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    m.lock("waiter");
    got = true;
    m.unlock();
  });
  long woken = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (woken < 4000 && std::chrono::steady_clock::now() < give_up) {
    woken += wake_without_release(m);
    std::this_thread::yield();
  }
  EXPECT_GE(woken, 4000);  // 4000 x 0.2 s slices would be 800 s
  EXPECT_FALSE(got.load());
  m.unlock();
  waiter.join();
  EXPECT_TRUE(got.load());
}

TEST(SharedSync, MutexExcludesThreads) {
  SharedMutex m;
  long counter = 0;
  auto work = [&] {
    for (int i = 0; i < 20000; ++i) {
      armci::SharedLockGuard g(m, "test");
      ++counter;
    }
  };
  std::thread a(work), b(work), c(work);
  a.join();
  b.join();
  c.join();
  EXPECT_EQ(counter, 60000);
  EXPECT_EQ(m.state.load(), 0u);
}

// The node agent's loop sleeps only when every poller promises that its fd
// will signal new work, and even then not forever: a provider that breaks
// the promise (a lost wake-up) costs one capped sleep, never a hang.
#include <gtest/gtest.h>

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/event_loop.hpp"

using armci::EventLoop;
using clock_type = std::chrono::steady_clock;

namespace {

bool comes(const std::atomic<bool>& flag, clock_type::duration within) {
  const auto end = clock_type::now() + within;
  while (!flag.load() && clock_type::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return flag.load();
}

}  // namespace

// Work appears with no signal on any fd: the loop finds it by itself.
TEST(EventLoop, WorkWithoutASignalIsFoundAfterACappedSleep) {
  EventLoop loop(EventLoop::Policy{});  // no poll window: idle at once
  std::atomic<bool> work{false}, found{false}, slept{false};
  loop.add_poller(
      [&] {
        if (!work.exchange(false)) return false;
        found = true;
        return true;
      },
      [&] {
        slept = true;
        return true;  // "my fd will signal", and it never does
      });
  loop.start("test-agent");
  ASSERT_TRUE(comes(slept, std::chrono::seconds(10))) << "the loop never went idle";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // well into its sleep
  const auto t0 = clock_type::now();
  work = true;
  const bool seen = comes(found, std::chrono::seconds(5));
  const double waited = std::chrono::duration<double>(clock_type::now() - t0).count();
  loop.stop();
  EXPECT_TRUE(seen) << "work left unseen for 5 s: " << loop.counters();
  EXPECT_LT(waited, 2.0) << loop.counters();
  EXPECT_GE(loop.missed_wakeups(), 1u) << loop.counters();
}

// An fd that does signal wakes the loop at once and is no missed wake-up.
TEST(EventLoop, SignalledWorkIsNoMissedWakeup) {
  EventLoop loop(EventLoop::Policy{});
  const int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  ASSERT_GE(fd, 0);
  std::atomic<int> handled{0};
  std::atomic<bool> slept{false};
  loop.add_fd(fd, EPOLLIN, [&](uint32_t) {
    uint64_t v;
    if (read(fd, &v, sizeof v) == sizeof v) ++handled;
    return true;
  });
  loop.add_poller([] { return false; }, [&] {
    slept = true;
    return true;
  });
  loop.start("test-agent");
  ASSERT_TRUE(comes(slept, std::chrono::seconds(10)));
  const uint64_t one = 1;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(write(fd, &one, sizeof one), static_cast<ssize_t>(sizeof one));
    const auto end = clock_type::now() + std::chrono::seconds(5);
    while (handled.load() <= i && clock_type::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  loop.stop();
  close(fd);
  EXPECT_EQ(handled.load(), 5) << loop.counters();
  EXPECT_EQ(loop.missed_wakeups(), 0u) << loop.counters();
}

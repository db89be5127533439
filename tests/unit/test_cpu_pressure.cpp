// The node agent leaves out its poll window while the machine has more
// runnable threads than CPUs (ARMCI_PROGRESS_YIELD).  The load line comes
// from a file the test writes, so no test depends on the machine's load.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "common/cpu_pressure.hpp"
#include "common/event_loop.hpp"

using armci::CpuPressure;
using armci::EventLoop;
using armci::runnable_in_loadavg;
using clock_type = std::chrono::steady_clock;

namespace {

// A /proc/loadavg stand-in.  Rewritten in place: the reader keeps its file
// open, and a read that meets a half-written line gets no count from it.
class LoadFile {
 public:
  LoadFile() {
    char name[] = "/tmp/armci_loadavg_XXXXXX";
    const int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = name;
  }
  ~LoadFile() { unlink(path_.c_str()); }
  void set(long runnable) const {
    std::ofstream(path_, std::ios::trunc) << "0.50 0.40 0.30 " << runnable << "/300 4242\n";
  }
  const char* path() const { return path_.c_str(); }

 private:
  std::string path_;
};

constexpr long kMany = 1000000;  // more runnable threads than any machine's CPUs

// Waits up to `limit` for flag; true if it came.
bool comes(const std::atomic<bool>& flag, std::chrono::milliseconds limit) {
  const auto end = clock_type::now() + limit;
  while (!flag.load() && clock_type::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return flag.load();
}

// An agent loop that reads the machine's load from f.
EventLoop::Policy agent_policy(const LoadFile& f, long poll_us, long contested_poll_us = 0) {
  EventLoop::Policy p;
  p.poll_us = poll_us;
  p.yield_when_contested = true;
  p.contested_poll_us = contested_poll_us;
  p.loadavg = f.path();
  return p;
}

// A poller with one event (its first poll), then nothing; it remembers how
// many polls came before the loop first asked to sleep.
struct OneEvent {
  std::atomic<long> polls{0};
  std::atomic<bool> asked_to_sleep{false};
  std::atomic<long> polls_before_sleep{-1};
  void attach(EventLoop& loop) {
    loop.add_poller([this] { return polls.fetch_add(1) == 0; },
                    [this] {
                      if (!asked_to_sleep.exchange(true)) polls_before_sleep = polls.load();
                      return true;
                    });
  }
};

}  // namespace

TEST(CpuPressure, ReadsTheRunnableCount) {
  EXPECT_EQ(runnable_in_loadavg("0.20 0.18 0.12 6/80 11206\n"), 6);
  EXPECT_EQ(runnable_in_loadavg("12.50 3.00 1.25 123/4567 99"), 123);
  EXPECT_EQ(runnable_in_loadavg("0.20 0.18 0.12 6 80"), -1);   // no '/': cut short
  EXPECT_EQ(runnable_in_loadavg("0.20 0.18 0.12 1"), -1);      // a half-written line
  EXPECT_EQ(runnable_in_loadavg("0.20 0.18"), -1);
  EXPECT_EQ(runnable_in_loadavg("0.20 0.18 0.12 x/80 1"), -1);
  EXPECT_EQ(runnable_in_loadavg(""), -1);
}

// The asking thread counts itself: cpus runnable threads leave no one
// waiting, one more does.
TEST(CpuPressure, MoreRunnableThanCpusIsContested) {
  LoadFile f;
  f.set(2);
  CpuPressure p(f.path(), 2);
  EXPECT_FALSE(p.contested());
  auto t = clock_type::now() + std::chrono::milliseconds(10);
  p.refresh(t);
  f.set(3);
  p.refresh(t + std::chrono::microseconds(500));  // read at most once a millisecond
  EXPECT_FALSE(p.contested());
  t += std::chrono::milliseconds(2);
  p.refresh(t);
  EXPECT_TRUE(p.contested());
  // Lines without a count leave the last answer.
  for (const char* bad : {"0.50 0.40", "0.50 0.40 0.30 -5/300 1", ""}) {
    std::ofstream(f.path(), std::ios::trunc) << bad;
    t += std::chrono::milliseconds(2);
    p.refresh(t);
    EXPECT_TRUE(p.contested()) << "after \"" << bad << "\"";
  }
  f.set(2);
  t += std::chrono::milliseconds(2);
  p.refresh(t);
  EXPECT_FALSE(p.contested());
}

TEST(CpuPressure, WithoutTheFileNeverContested) {
  CpuPressure p("/nonexistent/loadavg", 1);
  p.refresh(clock_type::now() + std::chrono::seconds(1));
  EXPECT_FALSE(p.contested());
  CpuPressure none(nullptr, 1);
  EXPECT_FALSE(none.contested());
}

// One event, then nothing: on a contested machine the loop goes to sleep
// at once; on a quiet one it polls through its window (1 s here) first.
TEST(CpuPressure, AgentLoopLeavesOutItsWindowWhenContested) {
  for (bool contested : {true, false}) {
    LoadFile f;
    f.set(contested ? kMany : 0);
    EventLoop loop(agent_policy(f, 1000000));
    OneEvent e;
    e.attach(loop);
    loop.start("test-agent");
    if (contested) {
      EXPECT_TRUE(comes(e.asked_to_sleep, std::chrono::seconds(10))) << "the loop never went idle";
    } else {
      const auto end = clock_type::now() + std::chrono::seconds(10);
      while (e.polls.load() < 1000 && clock_type::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    loop.stop();
    if (contested) {
      EXPECT_LE(e.polls_before_sleep.load(), 2) << "polled after the event: " << loop.counters();
      EXPECT_GE(loop.contested_skips(), 1u) << loop.counters();
    } else {
      // Unless the 1 s window passed without the loop getting a core.
      EXPECT_GE(e.polls.load(), 1000) << loop.counters();
      EXPECT_EQ(loop.contested_skips(), 0u) << loop.counters();
    }
  }
}

// On a contested machine ARMCI_PROGRESS_CONTESTED_US keeps the loop polling
// (and yielding) for that long after an event, then it sleeps.
TEST(CpuPressure, AgentLoopPollsItsContestedWindow) {
  LoadFile f;
  f.set(kMany);
  EventLoop loop(agent_policy(f, 60000000, 200000));
  OneEvent e;
  e.attach(loop);
  const auto t0 = clock_type::now();
  loop.start("test-agent");
  EXPECT_TRUE(comes(e.asked_to_sleep, std::chrono::seconds(10))) << "kept polling past the contested window";
  const double waited = std::chrono::duration<double>(clock_type::now() - t0).count();
  loop.stop();
  EXPECT_GT(e.polls_before_sleep.load(), 10) << "slept without polling the window: " << loop.counters();
  EXPECT_GE(waited, 0.15) << "the window ended early: " << loop.counters();
  EXPECT_GE(loop.contested_skips(), 1u) << loop.counters();
}

// A window opened on a quiet machine ends soon after the machine fills up,
// not when its 60 s are over.
TEST(CpuPressure, AgentLoopCutsItsWindowShort) {
  LoadFile f;
  f.set(0);
  EventLoop loop(agent_policy(f, 60000000));
  OneEvent e;
  e.attach(loop);
  loop.start("test-agent");
  const auto end = clock_type::now() + std::chrono::seconds(10);
  while (e.polls.load() < 1000 && clock_type::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(e.asked_to_sleep.load()) << "went idle inside its window on a quiet machine";
  f.set(kMany);
  EXPECT_TRUE(comes(e.asked_to_sleep, std::chrono::seconds(10))) << "kept polling on a contested machine";
  loop.stop();
  EXPECT_GE(loop.cut_windows(), 1u) << loop.counters();
}

// The node agent leaves out its poll window while the machine has more
// runnable threads than CPUs (ARMCI_PROGRESS_YIELD).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "common/cpu_pressure.hpp"
#include "common/event_loop.hpp"

using armci::CpuPressure;
using armci::EventLoop;
using armci::runnable_in_loadavg;
using clock_type = std::chrono::steady_clock;

namespace {

// cpus + 2 threads that spin until destroyed: the machine is then contested.
class Hogs {
 public:
  explicit Hogs(long n) {
    for (long i = 0; i < n; ++i)
      threads_.emplace_back([this] {
        while (!stop_.load(std::memory_order_relaxed)) {
        }
      });
  }
  ~Hogs() {
    stop_.store(true);
    for (auto& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace

TEST(CpuPressure, ReadsTheRunnableCount) {
  EXPECT_EQ(runnable_in_loadavg("0.20 0.18 0.12 6/80 11206\n"), 6);
  EXPECT_EQ(runnable_in_loadavg("12.50 3.00 1.25 123/4567 99"), 123);
  EXPECT_EQ(runnable_in_loadavg("0.20 0.18 0.12 6 80"), -1);
  EXPECT_EQ(runnable_in_loadavg("0.20 0.18"), -1);
  EXPECT_EQ(runnable_in_loadavg("0.20 0.18 0.12 x/80 1"), -1);
  EXPECT_EQ(runnable_in_loadavg(""), -1);
}

TEST(CpuPressure, SeesSpinningThreads) {
  CpuPressure p;
  ASSERT_GT(p.cpus(), 0);
  Hogs hogs(p.cpus() + 2);
  // The kernel's count is instantaneous: look for a while.
  bool seen = false;
  const auto end = clock_type::now() + std::chrono::seconds(5);
  while (!seen && clock_type::now() < end) {
    seen = p.contested(clock_type::now());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(seen) << "cpus + 2 spinning threads never showed as more runnable threads than CPUs";
}

// Work found on a contested machine opens no poll window when the loop
// yields, and always one when it does not.
TEST(CpuPressure, AgentLoopSkipsItsPollWindow) {
  for (bool yield : {true, false}) {
    EventLoop loop(1000, 0, yield);
    std::atomic<int> work{0};
    loop.add_poller([&] { return work.fetch_add(1) < 500; }, [] { return false; });
    {
      Hogs hogs(CpuPressure().cpus() + 2);
      loop.start("test-agent");
      const auto end = clock_type::now() + std::chrono::seconds(10);
      while (work.load() < 500 && clock_type::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      loop.stop();
    }
    ASSERT_GE(work.load(), 500) << "the agent loop did not run its poller";
    if (yield)
      EXPECT_GT(loop.contested_skips(), 0u) << loop.counters();
    else
      EXPECT_EQ(loop.contested_skips(), 0u) << loop.counters();
  }
}

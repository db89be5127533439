// One-sided progress: a target that computes without calling ARMCI must not
// delay puts, gets, accumulates, Rmw or locks into its memory; and the
// progress machinery of an idle process must stay (nearly) asleep.
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "mp_test.hpp"

using mp::me;
using mp::nproc;

namespace {

double mono_now() {  // CLOCK_MONOTONIC is shared by all processes of a machine
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double cpu_seconds() {  // all threads of this process
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// Pure computation: no ARMCI call, no system call.
volatile double g_sink;
void compute_for(double seconds) {
  double end = mono_now() + seconds, x = 1.0;
  while (mono_now() < end)
    for (int i = 0; i < 100000; ++i) x = x * 1.0000001 + 1e-9;
  g_sink = x;
}

}  // namespace

class Progress : public mp::MpTest {};

TEST_F(Progress, PassiveTargetDoesNotDelayOthers) {
  if (nproc() < 2) GTEST_SKIP() << "needs a target and an origin";
  mp::Shared<long> data(4096);
  std::memset(data.mine(), 0, 4096 * sizeof(long));
  ASSERT_EQ(ARMCI_Create_mutexes(1), 0);
  ARMCI_Barrier();
  const double compute = 3.0;
  // Enough rounds to matter, few enough for the slowest provider here
  // (sockets: ~5 ms per round trip on loopback).
  const int kRounds = 8;
  double times[2] = {0, 0};  // [0] target wakes, [1] origin finished
  if (me() == 0) {
    compute_for(compute);
    times[0] = mono_now();
  } else {
    const double start = mono_now();
    std::vector<long> buf(512, me()), back(512);
    for (int round = 0; round < kRounds; ++round) {
      ASSERT_EQ(ARMCI_Put(buf.data(), data.of(0) + 512 * (me() % 7), 512 * sizeof(long), 0), 0);
      ARMCI_Fence(0);
      ASSERT_EQ(ARMCI_Get(data.of(0) + 512 * (me() % 7), back.data(), 512 * sizeof(long), 0), 0);
      EXPECT_EQ(back[17], me());
      long one = 1, scale = 1;
      ASSERT_EQ(ARMCI_Acc(ARMCI_ACC_LNG, &scale, &one, data.of(0) + 4000, sizeof(long), 0), 0);
      long old = 0;
      ASSERT_EQ(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, data.of(0) + 4001, 1, 0), 0);
      ARMCI_Lock(0, 0);
      long v = ARMCI_GetValueLong(data.of(0) + 4002, 0);
      ARMCI_PutValueLong(v + 1, data.of(0) + 4002, 0);
      ARMCI_Unlock(0, 0);
    }
    ARMCI_Fence(0);
    times[1] = mono_now();
    // Far less than the target's computation: the target did not serve us.
    EXPECT_LT(times[1] - start, compute / 2) << "operations waited for the busy target";
  }
  armci_msg_dgop(times, 2, const_cast<char*>("max"));
  EXPECT_LT(times[1], times[0]) << "origins finished only after the target woke up";
  ARMCI_Barrier();
  if (me() == 0) {
    const long n = static_cast<long>(kRounds) * (nproc() - 1);
    EXPECT_EQ(data.mine()[4000], n);
    EXPECT_EQ(data.mine()[4001], n);
    EXPECT_EQ(data.mine()[4002], n);
  }
  ARMCI_Barrier();
  ASSERT_EQ(ARMCI_Destroy_mutexes(), 0);
}

TEST_F(Progress, IdleProcessesStayAsleep) {
  // Everybody idles 2 s without ARMCI calls: the agent threads and anything
  // else armci-ofi runs may use at most 5% of a core in that time.
  ARMCI_Barrier();
  const double c0 = cpu_seconds(), w0 = mono_now();
  usleep(2000000);
  const double cpu = cpu_seconds() - c0, wall = mono_now() - w0;
  EXPECT_LT(cpu / wall, 0.05) << "background CPU " << cpu << " s in " << wall << " s";
}

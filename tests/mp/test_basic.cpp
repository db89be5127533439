// Start-up facts and the simplest data movement.
#include <cstring>

#include "mp_test.hpp"

using mp::me;
using mp::nproc;

class Basic : public mp::MpTest {};

TEST_F(Basic, InitializedAndRanks) {
  EXPECT_EQ(ARMCI_Initialized(), 1);
  EXPECT_GE(me(), 0);
  EXPECT_LT(me(), nproc());
  // Init is reference counted: a second init/finalize pair keeps ARMCI up.
  EXPECT_EQ(ARMCI_Init(), 0);
  ARMCI_Finalize();
  EXPECT_EQ(ARMCI_Initialized(), 1);
}

TEST_F(Basic, RingPutGet) {
  mp::Shared<long> a(1024);
  for (int i = 0; i < 1024; ++i) a.mine()[i] = -1;
  ARMCI_Barrier();
  const int right = (me() + 1) % nproc();
  std::vector<long> src(1024);
  for (int i = 0; i < 1024; ++i) src[i] = me() * 100000L + i;
  ASSERT_EQ(ARMCI_Put(src.data(), a.of(right), 1024 * sizeof(long), right), 0);
  ARMCI_Barrier();
  const int left = (me() + nproc() - 1) % nproc();
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(a.mine()[i], left * 100000L + i) << "element " << i;
  std::vector<long> back(1024, 0);
  ASSERT_EQ(ARMCI_Get(a.of(right), back.data(), 1024 * sizeof(long), right), 0);
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(back[i], me() * 100000L + i);
}

TEST_F(Basic, AccumulateIntoRankZero) {
  mp::Shared<double> a(16);
  std::memset(a.mine(), 0, 16 * sizeof(double));
  ARMCI_Barrier();
  std::vector<double> one(16, 1.0);
  double scale = 2.0;
  ASSERT_EQ(ARMCI_Acc(ARMCI_ACC_DBL, &scale, one.data(), a.of(0), 16 * sizeof(double), 0), 0);
  ARMCI_Barrier();
  if (me() == 0) {
    for (int i = 0; i < 16; ++i) EXPECT_EQ(a.mine()[i], 2.0 * nproc());
  }
}

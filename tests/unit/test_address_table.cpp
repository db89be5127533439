// The table behind ARMCI's remote-address check: a range is accepted only
// wholly inside one live allocation of the process named.
#include <gtest/gtest.h>

#include <cstdint>

#include "armci/address_table.hpp"

using armci::AddressTable;
using armci::Allocation;

namespace {

void two_procs(AddressTable& t) {
  t.resize({0, 1});
  t.add(0, 0x10000, 64);
  t.add(0, 0x10040, 64);  // the neighbour block, right after
  t.add(1, 0x20000, 4096);
}

}  // namespace

TEST(AddressTable, InsideOneAllocationOnly) {
  AddressTable t;
  two_procs(t);
  EXPECT_TRUE(t.find(0, 0x10000, 64));
  EXPECT_TRUE(t.find(0, 0x10038, 8));
  EXPECT_FALSE(t.find(0, 0x1003c, 8));   // straddles into the neighbour
  EXPECT_TRUE(t.find(0, 0x10040, 8));    // the neighbour itself
  EXPECT_FALSE(t.find(0, 0x10080, 8));   // just past the last block
  EXPECT_FALSE(t.find(0, 0xfff8, 16));   // starts before the first
  EXPECT_FALSE(t.find(1, 0x10000, 8));   // process 0's address, process 1
  Allocation a;
  ASSERT_TRUE(t.find(1, 0x20100, 16, &a));
  EXPECT_EQ(a.base, 0x20000u);
  EXPECT_EQ(a.len, 4096u);
}

TEST(AddressTable, LengthsThatWrapAreRefused) {
  AddressTable t;
  two_procs(t);
  EXPECT_FALSE(t.find(1, 0x20000, SIZE_MAX));
  EXPECT_FALSE(t.find(1, 0x20010, SIZE_MAX - 8));
  EXPECT_FALSE(t.find(1, UINTPTR_MAX - 4, 16));
}

TEST(AddressTable, FreedBlocksAndTheLastHitGoTogether) {
  AddressTable t;
  two_procs(t);
  EXPECT_TRUE(t.find(1, 0x20000, 8));  // now the last hit
  t.remove(1, 0x20000);
  EXPECT_FALSE(t.find(1, 0x20000, 8));
  t.add(1, 0x20000, 64);  // reused, smaller
  EXPECT_TRUE(t.find(1, 0x20000, 64));
  EXPECT_FALSE(t.find(1, 0x20800, 8));
  EXPECT_EQ(t.live(1), 1u);
}

TEST(AddressTable, NearestNamesTheClosestBlock) {
  AddressTable t;
  two_procs(t);
  Allocation a;
  ASSERT_TRUE(t.nearest(0, 0x10090, &a));
  EXPECT_EQ(a.base, 0x10040u);
  ASSERT_TRUE(t.nearest(0, 0x1, &a));
  EXPECT_EQ(a.base, 0x10000u);
  t.remove(1, 0x20000);
  EXPECT_FALSE(t.nearest(1, 0x20000, &a));
}

TEST(AddressTable, ThreadedLookupsStillFind) {
  AddressTable t;
  two_procs(t);
  t.set_threaded(true);
  EXPECT_TRUE(t.find(0, 0x10040, 64));
  EXPECT_FALSE(t.find(0, 0x10040, 65));
}

// A look-up yields the transport's facts recorded for that very block (the
// cached last hit included), never a neighbour's.
TEST(AddressTable, YieldsTheBlocksOwnTarget) {
  AddressTable t;
  t.resize({0});
  armci::transport::Target a, b;
  a.node = 1, a.key = 11, a.keyed = true;
  b.node = 1, b.key = 22, b.keyed = true;
  t.add(0, 0x10000, 64, a);
  t.add(0, 0x10040, 64, b);
  Allocation out;
  ASSERT_TRUE(t.find(0, 0x10008, 8, &out));
  EXPECT_EQ(out.target.key, 11u);
  ASSERT_TRUE(t.find(0, 0x10010, 8, &out));  // the last-hit slot
  EXPECT_EQ(out.target.key, 11u);
  ASSERT_TRUE(t.find(0, 0x10048, 8, &out));
  EXPECT_EQ(out.target.key, 22u);
  t.remove(0, 0x10040);
  EXPECT_FALSE(t.find(0, 0x10048, 8, &out));
}

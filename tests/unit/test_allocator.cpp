// The node allocator on a control block in private memory.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <set>

#include "memory/heap_allocator.hpp"

using armci::memory::HeapAllocator;
using armci::memory::NodeControl;

namespace {

struct Fixture {
  std::unique_ptr<NodeControl> ctl = std::make_unique<NodeControl>();
  void add_segment(uint64_t off, uint64_t size) {
    uint32_t i = ctl->nsegments.load();
    ctl->seg[i].off = off;
    ctl->seg[i].size = size;
    ctl->nsegments.store(i + 1);
    HeapAllocator(*ctl).add_segment(off, size);
  }
};

}  // namespace

TEST(Allocator, AlignedFirstFitAndCoalescing) {
  Fixture f;
  f.add_segment(0, 1 << 20);
  HeapAllocator a(*f.ctl);
  auto x = a.allocate(100, 64);
  auto y = a.allocate(5000, 4096);
  auto z = a.allocate(1, 64);
  ASSERT_TRUE(x && y && z);
  EXPECT_EQ(*x % 64, 0u);
  EXPECT_EQ(*y % 4096, 0u);
  EXPECT_EQ(*z % 64, 0u);
  EXPECT_EQ(a.live_allocations(), 3u);
  EXPECT_EQ(a.release(*y), 5000u);
  EXPECT_EQ(a.release(*x), 100u);
  EXPECT_EQ(a.release(*z), 1u);
  EXPECT_EQ(a.free_extents(), 1u);  // all coalesced again
  EXPECT_EQ(a.bytes_free(), 1u << 20);
}

TEST(Allocator, ReleaseOfUnknownOffsetIsRefused) {
  Fixture f;
  f.add_segment(0, 1 << 16);
  HeapAllocator a(*f.ctl);
  auto x = a.allocate(128, 64);
  ASSERT_TRUE(x);
  EXPECT_EQ(a.release(*x + 64), 0u);  // interior, not a start
  EXPECT_EQ(a.release(*x), 128u);
  EXPECT_EQ(a.release(*x), 0u);  // twice
}

TEST(Allocator, NeverSpansSegments) {
  Fixture f;
  f.add_segment(0, 8192);
  f.add_segment(8192, 8192);
  HeapAllocator a(*f.ctl);
  EXPECT_EQ(a.free_extents(), 2u);  // adjacent but different segments stay apart
  EXPECT_FALSE(a.allocate(12288, 64));
  auto x = a.allocate(8192, 64);
  ASSERT_TRUE(x);
}

TEST(Allocator, TenThousandCyclesDoNotFragment) {
  Fixture f;
  f.add_segment(0, 64 << 20);
  HeapAllocator a(*f.ctl);
  std::mt19937 g(5);
  std::vector<uint64_t> live;
  for (int i = 0; i < 10000; ++i) {
    if (live.size() < 50 && (g() % 3 != 0 || live.empty())) {
      auto p = a.allocate(1 + g() % 100000, (g() & 1) ? 4096 : 64);
      ASSERT_TRUE(p);
      live.push_back(*p);
    } else {
      std::size_t k = g() % live.size();
      ASSERT_GT(a.release(live[k]), 0u);
      live.erase(live.begin() + static_cast<long>(k));
    }
  }
  for (auto p : live) a.release(p);
  EXPECT_EQ(a.free_extents(), 1u);
  EXPECT_EQ(a.bytes_free(), uint64_t{64} << 20);
}

TEST(Allocator, FindUsedLocatesInteriorAddresses) {
  Fixture f;
  f.add_segment(0, 1 << 16);
  HeapAllocator a(*f.ctl);
  auto x = a.allocate(1000, 64);
  ASSERT_TRUE(x);
  auto e = a.find_used(*x + 999);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->off, *x);
  EXPECT_FALSE(a.find_used(*x + 1000 + 4096));
}

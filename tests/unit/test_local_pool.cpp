// Size classes of the ARMCI_Malloc_local pool: every request fits its class,
// rounding wastes at most a quarter, and classes are consistent both ways.
#include <gtest/gtest.h>

#include <cstddef>

#include "memory/local_pool.hpp"

using armci::memory::LocalPool;

TEST(LocalPool, ClassesFitAndWasteAtMostAQuarter) {
  unsigned prev = 0;
  for (std::size_t n = 1; n < (std::size_t{1} << 34); n += 1 + n / 97) {
    const unsigned c = LocalPool::class_of(n);
    const std::size_t b = LocalPool::class_bytes(c);
    ASSERT_GE(b, n) << n;
    if (n > LocalPool::kMinBlock) {
      ASSERT_LE(b * 4, n * 5 + 3) << n << " -> " << b;
    }
    ASSERT_GE(c, prev) << "classes grow with the request";
    prev = c;
  }
}

TEST(LocalPool, ClassBytesMapBackToTheirClass) {
  for (unsigned c = 0; c < 160; ++c) {
    const std::size_t b = LocalPool::class_bytes(c);
    EXPECT_EQ(LocalPool::class_of(b), c) << b;
    EXPECT_EQ(LocalPool::class_of(b + 1), c + 1) << b + 1;
    if (c > 0) {
      EXPECT_GT(b, LocalPool::class_bytes(c - 1));
    }
  }
  EXPECT_EQ(LocalPool::class_bytes(LocalPool::class_of(24u << 20)), std::size_t{24} << 20);
}

// The strided walker against a reference model, 0..8 levels, strides that
// are not multiples of each other.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "transports/strided.hpp"

using armci::transport::StridedShape;

namespace {

// Reference: every byte's (src, dst) offset by explicit index arithmetic.
void reference(int levels, const int* count, const int* ss, const int* ds, const char* src,
               char* dst) {
  long idx[9] = {};
  long total = 1;
  for (int i = 1; i <= levels; ++i) total *= count[i];
  for (long k = 0; k < total; ++k) {
    long so = 0, d = 0, rem = k;
    for (int l = 1; l <= levels; ++l) {
      idx[l] = rem % count[l];
      rem /= count[l];
      so += idx[l] * ss[l - 1];
      d += idx[l] * ds[l - 1];
    }
    for (int b = 0; b < count[0]; ++b) dst[d + b] = src[so + b];
  }
}

}  // namespace

TEST(Strided, RandomShapesMatchReference) {
  std::mt19937 g(11);
  for (int trial = 0; trial < 400; ++trial) {
    int levels = static_cast<int>(g() % 9);
    int count[9], ss[8], ds[8];
    count[0] = 1 + static_cast<int>(g() % 9);
    for (int i = 1; i <= levels; ++i) count[i] = 1 + static_cast<int>(g() % (levels > 5 ? 2 : 3));
    long se = count[0], de = count[0];
    for (int i = 0; i < levels; ++i) {
      // Strides not multiples of each other; sometimes exactly contiguous.
      ss[i] = static_cast<int>(se + ((g() % 4 == 0) ? 0 : g() % 7));
      ds[i] = static_cast<int>(de + ((g() % 4 == 0) ? 0 : g() % 5));
      se = ss[i] * count[i + 1];
      de = ds[i] * count[i + 1];
    }
    std::vector<char> src(static_cast<std::size_t>(se) + 16), want(static_cast<std::size_t>(de) + 16, 0),
        got(want.size(), 0);
    for (auto& c : src) c = static_cast<char>(g());
    reference(levels, count, ss, ds, src.data(), want.data());
    StridedShape s(levels, count, ss, ds);
    armci::transport::for_each_piece(s, [&](long so, long d, std::size_t n) {
      std::copy(src.data() + so, src.data() + so + static_cast<long>(n), got.data() + d);
    });
    ASSERT_EQ(got, want) << "trial " << trial << " levels " << levels;
    EXPECT_LE(static_cast<long>(s.dst_extent()), de);
  }
}

TEST(Strided, ContiguousLevelsMerge) {
  int count[3] = {8, 4, 3};
  int ss[2] = {8, 32}, ds[2] = {8, 32};
  StridedShape s(2, count, ss, ds);
  EXPECT_EQ(s.levels, 0);
  EXPECT_EQ(s.count[0], 96);
  EXPECT_EQ(s.bytes(), 96u);
}

TEST(Strided, ZeroCountIsEmpty) {
  int count[2] = {8, 0};
  int ss[1] = {16}, ds[1] = {16};
  StridedShape s(1, count, ss, ds);
  EXPECT_TRUE(s.empty());
  int n = 0;
  armci::transport::for_each_piece(s, [&](long, long, std::size_t) { ++n; });
  EXPECT_EQ(n, 0);
}

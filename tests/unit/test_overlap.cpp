// The overlap scan of vector destinations (armci/overlap.hpp): each of its
// three paths (ascending, same-length aligned, sorted) gives the same answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "armci/overlap.hpp"

namespace {

std::vector<armci::DstRange> ranges(const std::vector<uintptr_t>& at, std::size_t len) {
  std::vector<armci::DstRange> r;
  for (std::size_t i = 0; i < at.size(); ++i) r.push_back({at[i], len, i});
  return r;
}

TEST(Overlap, AscendingElementsAreClean) {
  std::vector<uintptr_t> at;
  for (uintptr_t i = 0; i < 1000; ++i) at.push_back(0x10000 + 8 * i);
  auto r = ranges(at, 8);
  const auto s = armci::scan_overlap(r);
  EXPECT_FALSE(s.partial);
  EXPECT_EQ(s.duplicates, 0u);
}

TEST(Overlap, ShuffledElementsWithoutRepeatAreClean) {
  std::vector<uintptr_t> at;
  for (uintptr_t i = 0; i < 5000; ++i) at.push_back(0x10000 + 8 * i);
  std::shuffle(at.begin(), at.end(), std::mt19937(7));
  auto r = ranges(at, 8);
  const auto s = armci::scan_overlap(r);
  EXPECT_FALSE(s.partial);
  EXPECT_EQ(s.duplicates, 0u);
}

TEST(Overlap, ShuffledElementsWithOneRepeatAreFound) {
  std::vector<uintptr_t> at;
  for (uintptr_t i = 0; i < 5000; ++i) at.push_back(0x10000 + 8 * i);
  at.push_back(0x10000 + 8 * 1234);
  std::shuffle(at.begin(), at.end(), std::mt19937(7));
  auto r = ranges(at, 8);
  const auto s = armci::scan_overlap(r);
  EXPECT_FALSE(s.partial);
  EXPECT_EQ(s.duplicates, 1u);
  EXPECT_EQ(at[s.a], at[s.b]);
}

TEST(Overlap, MisalignedElementIsAPartialOverlap) {
  std::vector<uintptr_t> at;
  for (uintptr_t i = 0; i < 100; ++i) at.push_back(0x10000 + 8 * (99 - i));
  at.push_back(0x10000 + 8 * 50 + 4);  // inside element 50
  auto r = ranges(at, 8);
  const auto s = armci::scan_overlap(r);
  EXPECT_TRUE(s.partial);
}

}  // namespace

#include <gtest/gtest.h>

#include <cstdlib>

#include "common/knobs.hpp"

using armci::Knobs;

TEST(Knobs, SizesWithSuffixes) {
  std::size_t v = 0;
  EXPECT_TRUE(armci::parse_size("4096", v));
  EXPECT_EQ(v, 4096u);
  EXPECT_TRUE(armci::parse_size("64M", v));
  EXPECT_EQ(v, 64u << 20);
  EXPECT_TRUE(armci::parse_size("2G", v));
  EXPECT_EQ(v, std::size_t{2} << 30);
  EXPECT_TRUE(armci::parse_size("16KiB", v));
  EXPECT_EQ(v, 16u << 10);
  EXPECT_FALSE(armci::parse_size("12Q", v));
  EXPECT_FALSE(armci::parse_size("", v));
  EXPECT_FALSE(armci::parse_size("-1", v));
}

TEST(Knobs, EveryKnobIsDocumentedAndHasADefault) {
  for (const auto& k : Knobs::table()) {
    EXPECT_GT(std::string(k.doc).size(), 20u) << k.name;
    EXPECT_NE(k.default_text, nullptr) << k.name;
  }
}

TEST(Knobs, EnvironmentOverridesDefaults) {
  setenv("ARMCI_VNODES", "3", 1);
  setenv("ARMCI_SHM_SEGMENT", "32M", 1);
  Knobs k = Knobs::from_environment();
  EXPECT_EQ(k.VNODES, 3);
  EXPECT_EQ(k.SHM_SEGMENT, 32u << 20);
  unsetenv("ARMCI_VNODES");
  unsetenv("ARMCI_SHM_SEGMENT");
  Knobs d = Knobs::from_environment();
  EXPECT_EQ(d.VNODES, 1);
  EXPECT_EQ(d.SHM_SEGMENT, 256u << 20);
}

TEST(KnobsDeathTest, MalformedValueNamesTheVariable) {
  EXPECT_EXIT(
      {
        setenv("ARMCI_VNODES", "two", 1);
        Knobs::from_environment();
      },
      ::testing::ExitedWithCode(1), "ARMCI_VNODES=\"two\" is not an integer");
}

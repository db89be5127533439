// Which NIC a process's own traffic leaves through (ARMCI_NIC_PLACEMENT=near).
#include <gtest/gtest.h>

#include <vector>

#include "transports/ofi/nics.hpp"

using armci::transport::ofi::home_nic;

TEST(NicPlacement, UnknownLocalitySpreadsByLocalRank) {
  const std::vector<int> numa{-1, -1, -1};
  std::vector<std::size_t> got;
  for (int r = 0; r < 6; ++r) got.push_back(home_nic(numa, 0, r));
  EXPECT_EQ(got, (std::vector<std::size_t>{0, 1, 2, 0, 1, 2}));
}

TEST(NicPlacement, NearNicOnMyNumaNodeFirst) {
  // Four NICs, two per NUMA node (Frontier-class): a process on node 1
  // uses NIC 1 or 3, spread by local rank.
  const std::vector<int> numa{0, 1, 0, 1};
  EXPECT_EQ(home_nic(numa, 1, 0), 1u);
  EXPECT_EQ(home_nic(numa, 1, 1), 3u);
  EXPECT_EQ(home_nic(numa, 1, 2), 1u);
  EXPECT_EQ(home_nic(numa, 0, 5), 2u);
}

TEST(NicPlacement, NoNicOnMyNumaNodeOrMyNodeUnknownSpreads) {
  const std::vector<int> numa{0, 0};
  EXPECT_EQ(home_nic(numa, 3, 1), 1u);   // none on node 3
  EXPECT_EQ(home_nic(numa, -1, 3), 1u);  // where I run is unknown
  EXPECT_EQ(home_nic({}, 0, 3), 0u);
  EXPECT_EQ(home_nic({5}, 5, 7), 0u);
}

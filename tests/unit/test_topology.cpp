#include <gtest/gtest.h>

#include "armci/topology.hpp"

using armci::make_topology;

TEST(Topology, VirtualNodesSplitConsecutiveAndBalanced) {
  std::vector<int> world{0, 1, 2, 3, 4};
  std::vector<int> phys(5, 0);
  auto t = make_topology(world, 3, phys, 2);
  ASSERT_EQ(t.nnodes, 2);
  EXPECT_EQ(t.node_procs[0], (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(t.node_procs[1], (std::vector<int>{3, 4}));
  EXPECT_EQ(t.me, 3);
  EXPECT_EQ(t.my_node(), 1);
  EXPECT_EQ(t.my_local(), 0);
  auto t3 = make_topology(std::vector<int>{0, 1, 2, 3, 4, 5, 6}, 0, std::vector<int>(7, 0), 3);
  ASSERT_EQ(t3.nnodes, 3);
  EXPECT_EQ(t3.node_procs[0].size(), 3u);
  EXPECT_EQ(t3.node_procs[1].size(), 2u);
  EXPECT_EQ(t3.node_procs[2].size(), 2u);
}

TEST(Topology, MoreVirtualNodesThanProcessesGivesOneEach) {
  auto t = make_topology(std::vector<int>{0, 1}, 1, std::vector<int>{0, 0}, 8);
  EXPECT_EQ(t.nnodes, 2);
}

TEST(Topology, LauncherNodesSplitSeparately) {
  // Ranks 0-2 on host 0, 3-5 on host 1, each split in two.
  auto t = make_topology(std::vector<int>{0, 1, 2, 3, 4, 5}, 4, std::vector<int>{0, 0, 0, 1, 1, 1}, 2);
  ASSERT_EQ(t.nnodes, 4);
  EXPECT_EQ(t.node_procs[2], (std::vector<int>{3, 4}));
  EXPECT_EQ(t.node_procs[3], (std::vector<int>{5}));
  EXPECT_FALSE(t.same_node(2));
}

TEST(Topology, SubsetWorldUsesArmciRanks) {
  // ARMCI world made of launcher ranks 4, 2, 6 (e.g. ARMCI_Init_mpi_comm).
  auto t = make_topology(std::vector<int>{4, 2, 6}, 6, std::vector<int>(8, 0), 1);
  EXPECT_EQ(t.me, 2);
  EXPECT_EQ(t.nprocs(), 3);
  EXPECT_EQ(t.node_procs[0], (std::vector<int>{0, 1, 2}));
}

// The active-message budget both ends of a node agent's traffic compute.
#include <gtest/gtest.h>

#include "transports/ofi/am_protocol.hpp"

using armci::transport::ofi::am_budget;
using armci::transport::ofi::kAgentRecvCap;
using armci::transport::ofi::kAgentSlack;
using armci::transport::ofi::kWindowMax;

// Whenever the agent can post a receive for every sender's full window, it
// does: senders x window never exceeds the receives it keeps posted, so no
// message arrives unexpected.  Past that, each sender still gets a window of one.
TEST(AmBudget, WindowsFitThePostedReceives) {
  for (std::size_t rx : {16ul, 64ul, 200ul, 256ul, 2048ul}) {
    for (int senders = 0; senders <= 5000; ++senders) {
      const auto b = am_budget(rx, senders);
      const std::size_t n = senders > 0 ? static_cast<std::size_t>(senders) : 1;
      EXPECT_LE(b.agent_recvs, std::min(rx, kAgentRecvCap)) << rx << " " << senders;
      EXPECT_GE(b.window, 1u);
      EXPECT_LE(b.window, kWindowMax);
      if (rx > kAgentSlack && n <= std::min(rx, kAgentRecvCap) - kAgentSlack) {
        EXPECT_LE(n * b.window + kAgentSlack, b.agent_recvs) << rx << " " << senders;
      }
    }
  }
}

TEST(AmBudget, FewSendersGetTheFullWindow) {
  EXPECT_EQ(am_budget(256, 1).window, kWindowMax);
  EXPECT_EQ(am_budget(256, 4).window, kWindowMax);
  EXPECT_EQ(am_budget(256, 4).agent_recvs, 4 * kWindowMax + kAgentSlack);
  EXPECT_EQ(am_budget(2048, 100).agent_recvs, kAgentRecvCap);
  EXPECT_EQ(am_budget(2048, 100).window, (kAgentRecvCap - kAgentSlack) / 100);
  EXPECT_EQ(am_budget(0, 4).agent_recvs, am_budget(kAgentRecvCap, 4).agent_recvs)
      << "a provider that reports no queue depth gets the cap, not zero receives";
}

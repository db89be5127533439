// The initiator's ordering plan (transports/ofi/ordering.hpp): what each
// class of operation waits for, from the provider's ordering bits.
#include <gtest/gtest.h>

#include "transports/ofi/ordering.hpp"

using namespace armci::transport;

namespace {

OrderingPlan plan(uint64_t order) {
  ofi::Caps c;
  c.msg_order = order;
  return OrderingPlan(c, false);
}

bool waits(const OrderingPlan& p, OpClass next, uint8_t what) { return (p.drains(next) & what) != 0; }

constexpr uint64_t kTcpRxm = FI_ORDER_RAW | FI_ORDER_WAW | FI_ORDER_SAW | FI_ORDER_SAS | FI_ORDER_WAS;

}  // namespace

// Two reads commute: a get the agent serves passes an earlier RMA read,
// where any other active message (it may write) waits for it without SAR.
TEST(OrderingPlan, AgentGetPassesEarlierReads) {
  const OrderingPlan p = plan(kTcpRxm);
  EXPECT_FALSE(waits(p, OpClass::AmGet, OrderingPlan::kDrainReads));
  EXPECT_TRUE(waits(p, OpClass::Am, OrderingPlan::kDrainReads));
  EXPECT_FALSE(waits(p, OpClass::Read, OrderingPlan::kDrainReads));
}

// It still sees every earlier write and message: where the provider does
// not order a message after them, it waits for them.
TEST(OrderingPlan, AgentGetSeesEarlierWritesAndMessages) {
  const OrderingPlan none = plan(0);
  EXPECT_TRUE(waits(none, OpClass::AmGet, OrderingPlan::kDrainWrites));
  EXPECT_TRUE(waits(none, OpClass::AmGet, OrderingPlan::kDrainAms));
  EXPECT_TRUE(waits(none, OpClass::AmGet, OrderingPlan::kDrainAtomics));
  EXPECT_FALSE(waits(none, OpClass::AmGet, OrderingPlan::kDrainReads));
  const OrderingPlan ordered = plan(kTcpRxm);
  EXPECT_FALSE(waits(ordered, OpClass::AmGet, OrderingPlan::kDrainWrites));
  EXPECT_FALSE(waits(ordered, OpClass::AmGet, OrderingPlan::kDrainAms));
  EXPECT_TRUE(waits(ordered, OpClass::AmGet, OrderingPlan::kDrainAtomics));
}

// A write after any active message waits for its reply, a get's too: the
// agent may still be reading what the write would overwrite.
TEST(OrderingPlan, WritesWaitForAgentGets) {
  for (uint64_t order : {uint64_t{0}, kTcpRxm}) {
    const OrderingPlan p = plan(order);
    EXPECT_TRUE(waits(p, OpClass::Write, OrderingPlan::kDrainAms));
    EXPECT_TRUE(waits(p, OpClass::Atomic, OrderingPlan::kDrainAms));
    EXPECT_TRUE(waits(p, OpClass::Atomic, OrderingPlan::kDrainReads));
  }
}

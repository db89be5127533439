#include <gtest/gtest.h>

#include "armci/reduce_ops.hpp"
#include "message.h"

using armci::ReduceOp;

TEST(ReduceOps, ParsesEveryOpString) {
  ReduceOp o;
  struct {
    const char* s;
    ReduceOp want;
  } cases[] = {{"+", ReduceOp::Sum},        {"*", ReduceOp::Prod},       {"max", ReduceOp::Max},
               {"min", ReduceOp::Min},      {"absmax", ReduceOp::AbsMax}, {"absmin", ReduceOp::AbsMin},
               {"or", ReduceOp::BitOr},     {"&&", ReduceOp::LogAnd},    {"land", ReduceOp::LogAnd},
               {"||", ReduceOp::LogOr},     {"lor", ReduceOp::LogOr},    {"&", ReduceOp::BitAnd},
               {"band", ReduceOp::BitAnd},  {"|", ReduceOp::BitOr},      {"bor", ReduceOp::BitOr}};
  for (auto& c : cases) {
    ASSERT_TRUE(armci::parse_reduce_op(c.s, o)) << c.s;
    EXPECT_EQ(o, c.want) << c.s;
  }
  EXPECT_FALSE(armci::parse_reduce_op("xor", o));
  EXPECT_FALSE(armci::parse_reduce_op(nullptr, o));
}

TEST(ReduceOps, AbsoluteValuesForAbsOps) {
  int a[3] = {-5, 2, -1}, b[3] = {3, -7, 0};
  armci::reduce_prepare(ARMCI_INT, ReduceOp::AbsMax, a, 3);
  armci::reduce_prepare(ARMCI_INT, ReduceOp::AbsMax, b, 3);
  armci::reduce_combine(ARMCI_INT, ReduceOp::AbsMax, a, b, 3);
  EXPECT_EQ(a[0], 5);
  EXPECT_EQ(a[1], 7);
  EXPECT_EQ(a[2], 1);
}

TEST(ReduceOps, LogicalAndBitwise) {
  long a[2] = {6, 0}, b[2] = {3, 0};
  armci::reduce_combine(ARMCI_LONG, ReduceOp::BitAnd, a, b, 2);
  EXPECT_EQ(a[0], 2);
  double x[2] = {2.0, 0.0}, y[2] = {0.5, 0.0};
  armci::reduce_combine(ARMCI_DOUBLE, ReduceOp::LogOr, x, y, 2);
  EXPECT_EQ(x[0], 1.0);
  EXPECT_EQ(x[1], 0.0);
}

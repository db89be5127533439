#include <gtest/gtest.h>

#include <climits>
#include <complex>
#include <cstring>
#include <vector>

#include "armci.h"
#include "transports/acc_kernels.hpp"

using armci::transport::acc_apply;

TEST(AccKernels, RealTypesWithScale) {
  std::vector<double> d(5, 1.0), s{1, 2, 3, 4, 5};
  double a = 0.5;
  acc_apply(ARMCI_ACC_DBL, &a, s.data(), d.data(), 5 * sizeof(double));
  for (int i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(d[i], 1.0 + 0.5 * (i + 1));
  std::vector<int> di(3, 10), si{1, 2, 3};
  int ai = -2;
  acc_apply(ARMCI_ACC_INT, &ai, si.data(), di.data(), 3 * sizeof(int));
  EXPECT_EQ(di, (std::vector<int>{8, 6, 4}));
  std::vector<long> dl(2, 1L << 40), sl{1, 1};
  long al = 3;
  acc_apply(ARMCI_ACC_LNG, &al, sl.data(), dl.data(), 2 * sizeof(long));
  EXPECT_EQ(dl[0], (1L << 40) + 3);
  std::vector<float> df(2, 0.f), sf{1.f, 2.f};
  float af = 1.f;
  acc_apply(ARMCI_ACC_FLT, &af, sf.data(), df.data(), 2 * sizeof(float));
  EXPECT_EQ(df[1], 2.f);
}

TEST(AccKernels, ComplexScaleMultipliesAsComplex) {
  std::vector<std::complex<double>> d(2, {1, 1}), s{{1, 2}, {3, -1}};
  std::complex<double> a{0, 1};
  acc_apply(ARMCI_ACC_DCP, &a, s.data(), d.data(), 2 * sizeof(std::complex<double>));
  EXPECT_EQ(d[0], std::complex<double>(1, 1) + a * std::complex<double>(1, 2));
  EXPECT_EQ(d[1], std::complex<double>(1, 1) + a * std::complex<double>(3, -1));
  std::vector<std::complex<float>> df(1, {0, 0}), sf{{2, 3}};
  std::complex<float> af{2, -1};
  acc_apply(ARMCI_ACC_CPL, &af, sf.data(), df.data(), sizeof(std::complex<float>));
  EXPECT_EQ(df[0], af * std::complex<float>(2, 3));
}

TEST(AccKernels, ElementSizes) {
  EXPECT_EQ(armci::transport::acc_elem_size(ARMCI_ACC_INT), sizeof(int));
  EXPECT_EQ(armci::transport::acc_elem_size(ARMCI_ACC_DCP), 16u);
  EXPECT_EQ(armci::transport::acc_elem_size(36), 0u);
  EXPECT_EQ(armci::transport::acc_elem_size(43), 0u);
}

// Integer accumulates wrap (two's complement) instead of overflowing into
// undefined behaviour, and elements may sit at any alignment (the node
// agent applies pieces at whatever address a message names).
TEST(AccKernels, IntegersWrapAndAnyAlignmentWorks) {
  int d = INT_MAX, s = 1, two = 2;
  acc_apply(ARMCI_ACC_INT, &two, &s, &d, sizeof d);
  EXPECT_EQ(d, INT_MIN + 1);
  long dl = LONG_MIN, sl = -1, one = 1;
  acc_apply(ARMCI_ACC_LNG, &one, &sl, &dl, sizeof dl);
  EXPECT_EQ(dl, LONG_MAX);
  alignas(16) unsigned char raw[3 * sizeof(double) + 1] = {};
  alignas(16) unsigned char src[3 * sizeof(double) + 3] = {};
  const double vals[3] = {1.5, -2.0, 4.25}, scale = 2.0;
  std::memcpy(src + 3, vals, sizeof vals);
  acc_apply(ARMCI_ACC_DBL, &scale, src + 3, raw + 1, sizeof vals);
  double got[3];
  std::memcpy(got, raw + 1, sizeof got);
  EXPECT_DOUBLE_EQ(got[0], 3.0);
  EXPECT_DOUBLE_EQ(got[1], -4.0);
  EXPECT_DOUBLE_EQ(got[2], 8.5);
}

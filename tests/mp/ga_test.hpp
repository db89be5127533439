// Support for the GA-layer tests: GA is initialised once per program (after
// mp_main's ARMCI_Init) and terminated before ARMCI_Finalize; arrays are
// destroyed on scope exit; a few value patterns and locality helpers.
#pragma once
#include <complex>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ga/ga.h"
#include "mp_check.hpp"

namespace gat {

class Env : public ::testing::Environment {
 public:
  void SetUp() override { GA_Initialize(); }
  void TearDown() override { GA_Terminate(); }
};
inline ::testing::Environment* const env = ::testing::AddGlobalTestEnvironment(new Env);

class GaTest : public mp::MpTest {};

// An array handle destroyed at scope exit (collectively, by its group).
class GA {
 public:
  explicit GA(int h) : h_(h) {}
  ~GA() {
    if (h_) GA_Destroy(h_);
  }
  GA(const GA&) = delete;
  GA& operator=(const GA&) = delete;
  operator int() const { return h_; }

 private:
  int h_;
};

inline int nnodes() { return GA_Cluster_nnodes(); }
inline int node() { return GA_Cluster_nodeid(); }
// Node-local rank and node size of this process.
inline int local_rank() {
  const int n = node();
  for (int i = 0; i < GA_Cluster_nprocs(n); ++i)
    if (GA_Cluster_procid(n, i) == mp::me()) return i;
  return -1;
}
inline int local_size() { return GA_Cluster_nprocs(node()); }

// Bytes this process has sent or fetched through libfabric so far.
inline long remote_bytes() { return mp::ofi_stat("remote_bytes"); }

// ARMCI_OFI_ATOMICS=1 routes every accumulate through the NIC, this node's
// too: such accumulates count as libfabric bytes without leaving the node.
inline bool nic_accumulates() {
  const char* v = std::getenv("ARMCI_OFI_ATOMICS");
  return v && std::atoi(v) == 1;
}

inline long sum_all(long x) {
  GA_Lgop(&x, 1, const_cast<char*>("+"));
  return x;
}

// A value that identifies element `lin` of an array, in any element type.
template <typename T>
T pattern(long lin, long salt = 0) {
  const long v = (lin * 7 + salt * 1000003) % 100000 - 333;
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return T(static_cast<typename T::value_type>(v), static_cast<typename T::value_type>(-v / 2));
  else
    return static_cast<T>(v);
}

// Row-major linear index of sub in dims.
inline long linear(int ndim, const int* dims, const int* sub) {
  long l = 0;
  for (int d = 0; d < ndim; ++d) l = l * dims[d] + sub[d];
  return l;
}

// ld[] of a dense buffer holding patch [lo, hi].
inline std::vector<int> tight_ld(int ndim, const int* lo, const int* hi) {
  std::vector<int> ld;
  for (int d = 1; d < ndim; ++d) ld.push_back(hi[d] - lo[d] + 1);
  if (ld.empty()) ld.push_back(1);
  return ld;
}

inline char* op(const char* s) { return const_cast<char*>(s); }

}  // namespace gat

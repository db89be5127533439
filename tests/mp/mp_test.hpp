// Multi-process GoogleTest support: every rank runs every test; a test fails
// if it failed on any rank (agreed in TearDown), and only rank 0 prints the
// usual report (other ranks print their own failure messages).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "armci.h"
#include "message.h"

namespace mp {

inline int me() { return armci_msg_me(); }
inline int nproc() { return armci_msg_nproc(); }

// A runtime counter (ARMCI_Ofi_stat); a name the runtime does not report fails the test.
inline long ofi_stat(const char* name) {
  const long v = ARMCI_Ofi_stat(name);
  if (v < 0) ADD_FAILURE() << "ARMCI_Ofi_stat has no counter \"" << name << "\"";
  return v;
}

class MpTest : public ::testing::Test {
 protected:
  void SetUp() override { ARMCI_Barrier(); }
  void TearDown() override {
    int failed = HasFailure() ? 1 : 0;
    armci_msg_igop(&failed, 1, const_cast<char*>("+"));
    if (failed && !HasFailure()) ADD_FAILURE() << failed << " other rank(s) failed this test";
    ARMCI_Barrier();
  }
};

// A collective ARMCI_Malloc'ed array of T per process, freed on scope exit.
template <typename T>
class Shared {
 public:
  explicit Shared(std::size_t n_per_proc) : n_(n_per_proc), ptrs_(static_cast<std::size_t>(nproc())) {
    int rc = ARMCI_Malloc(ptrs_.data(), static_cast<armci_size_t>(n_per_proc * sizeof(T)));
    EXPECT_EQ(rc, 0);
  }
  ~Shared() { ARMCI_Free(ptrs_[static_cast<std::size_t>(me())]); }
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;
  T* of(int p) const { return static_cast<T*>(ptrs_[static_cast<std::size_t>(p)]); }
  T* mine() const { return of(me()); }
  std::size_t size() const { return n_; }

 private:
  std::size_t n_;
  std::vector<void*> ptrs_;
};

// The first process of another node (my right neighbour on one node).
inline int other_node() {
  const int node = armci_domain_id(ARMCI_DOMAIN_SMP, me());
  for (int k = 1; k < nproc(); ++k)
    if (armci_domain_id(ARMCI_DOMAIN_SMP, (me() + k) % nproc()) != node) return (me() + k) % nproc();
  return (me() + 1) % nproc();
}

// Whether a lone message to another node is written into its agent's inbox
// (ARMCI_OFI_POLLED_AM): tcp, one NIC.  Only virtual nodes
// promise one NIC (loopback); namespace hosts may have several links, and
// then it is off.  Not with ARMCI_OFI_MR_LOCAL=1 either: collectives then
// go through the agents' mailboxes as quiet signals, and an inbox stays
// closed to a sender while one of its signals there is unflushed.
inline bool polled_expected() {
  auto env = [](const char* k) {
    const char* v = std::getenv(k);
    return std::string(v ? v : "");
  };
  const std::string prov = env("ARMCI_OFI_PROVIDER");
  return armci_domain_count(ARMCI_DOMAIN_SMP) > 1 && !env("ARMCI_VNODES").empty() &&
         (prov.empty() || prov.rfind("tcp", 0) == 0) && env("ARMCI_OFI_POLLED_AM") != "0" &&
         env("ARMCI_OFI_ATOMICS") != "1" && env("ARMCI_NICS").empty() &&
         env("ARMCI_OFI_INJECT").empty() && env("ARMCI_OFI_MR_LOCAL") != "1";
}

// Same sequence on every rank for a given seed.
inline std::mt19937_64 rng(uint64_t seed) { return std::mt19937_64(seed * 0x9e3779b97f4a7c15ull + 7); }

}  // namespace mp

// A fixed mix of operations for tests/checks/profile_check.sh: every process sends
// the same calls to every process (itself included), so the ARMCI_PROFILE
// table at Finalize is known from the process count and the node layout:
// per target 4 puts (3 x 1000 B blocking, 1 x 500 B non-blocking), 2 gets of
// 1000 B, 1 acc of 100 doubles, 1 strided put of 2 x 100 B, 1 vector get of
// 2 x 64 B, 5 fetch-and-adds (int).  With "ga": a GA array of 1000 doubles
// per process, read whole by every process once (one piece per owner: node
// neighbours' pieces are copies the GA layer reports, the others vector gets).
#include <cstdio>
#include <cstring>
#include <vector>

#include "armci.h"
#include "ga/ga.h"

namespace {

int ga_probe() {
  GA_Initialize();
  const int n = GA_Nnodes();
  std::vector<int> map(static_cast<std::size_t>(n));
  for (int p = 0; p < n; ++p) map[static_cast<std::size_t>(p)] = p * 1000;  // block starts
  int dims[1] = {n * 1000}, block[1] = {n};
  char name[] = "probe";
  const int g = NGA_Create_irreg(C_DBL, 1, dims, name, block, map.data());
  GA_Sync();
  std::vector<double> all(static_cast<std::size_t>(n) * 1000);
  int lo[1] = {0}, hi[1] = {n * 1000 - 1}, ld[1] = {1};
  NGA_Get(g, lo, hi, all.data(), ld);
  GA_Sync();
  if (GA_Nodeid() == 0) std::printf("profile_probe ga: done on %d processes\n", n);
  GA_Destroy(g);
  GA_Terminate();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "ga") == 0) return ga_probe();
  ARMCI_Init_args(&argc, &argv);
  int me = armci_msg_me(), n = armci_msg_nproc();
  std::vector<void*> base(static_cast<std::size_t>(n));
  if (ARMCI_Malloc(base.data(), 8192) != 0) return 1;
  std::vector<char> buf(4096, 1);
  double scale = 1.0;
  for (int q = 0; q < n; ++q) {
    char* r = static_cast<char*>(base[static_cast<std::size_t>(q)]);
    for (int i = 0; i < 3; ++i) ARMCI_Put(buf.data(), r, 1000, q);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbPut(buf.data(), r + 1000, 500, q, &h);
    ARMCI_Wait(&h);
    for (int i = 0; i < 2; ++i) ARMCI_Get(r, buf.data(), 1000, q);
    ARMCI_Acc(ARMCI_ACC_DBL, &scale, buf.data(), r + 2048, 800, q);
    int stride[1] = {200}, count[2] = {100, 2};
    ARMCI_PutS(buf.data(), stride, r + 4096, stride, count, 1, q);
    void* src[2] = {r + 6000, r + 6100};
    void* dst[2] = {buf.data(), buf.data() + 100};
    armci_giov_t v;
    v.src_ptr_array = src;
    v.dst_ptr_array = dst;
    v.ptr_array_len = 2;
    v.bytes = 64;
    ARMCI_GetV(&v, 1, q);
    int old = 0;
    for (int i = 0; i < 5; ++i) ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, r + 8000, 1, q);
  }
  ARMCI_AllFence();
  armci_msg_barrier();
  if (me == 0) std::printf("profile_probe: done on %d processes\n", n);
  ARMCI_Free(base[static_cast<std::size_t>(me)]);
  ARMCI_Finalize();
  return 0;
}

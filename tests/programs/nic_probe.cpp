// NIC placement probe (tests/multihost/run --suite): one process (argv[1],
// default 1) moves about 40 MB to and from the last process in transfers
// below the striping threshold (puts, gets, accumulates of 64 KiB), the
// others only wait; the script reads the interface counters of the hosts
// before and after, so the NIC its traffic took is the one whose counters
// moved.  Checks the data too: placement must not change a byte.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "armci.h"
#include "message.h"

int main(int argc, char** argv) {
  ARMCI_Init_args(&argc, &argv);
  const int me = armci_msg_me(), np = armci_msg_nproc();
  const int sender = argc > 1 ? std::atoi(argv[1]) : 1, target = np - 1;
  constexpr int kDoubles = 8192;  // 64 KiB
  constexpr int kRounds = 200;
  std::vector<void*> base(static_cast<std::size_t>(np));
  ARMCI_Malloc(base.data(), kDoubles * sizeof(double));
  auto* mine = static_cast<double*>(base[static_cast<std::size_t>(me)]);
  for (int i = 0; i < kDoubles; ++i) mine[i] = 0;
  ARMCI_Barrier();
  int bad = 0;
  if (me == sender && sender != target) {
    std::vector<double> src(kDoubles), back(kDoubles);
    auto* there = static_cast<double*>(base[static_cast<std::size_t>(target)]);
    double one = 1;
    for (int r = 0; r < kRounds; ++r) {
      for (int i = 0; i < kDoubles; ++i) src[i] = r * 1e6 + i;
      ARMCI_Put(src.data(), there, kDoubles * sizeof(double), target);
      ARMCI_Get(there, back.data(), kDoubles * sizeof(double), target);
      if (std::memcmp(src.data(), back.data(), src.size() * sizeof(double)) != 0) ++bad;
      ARMCI_Acc(ARMCI_ACC_DBL, &one, src.data(), there, kDoubles * sizeof(double), target);
      ARMCI_Fence(target);
      ARMCI_Get(there, back.data(), kDoubles * sizeof(double), target);
      for (int i = 0; i < kDoubles; ++i)
        if (back[i] != 2 * src[i]) {
          ++bad;
          break;
        }
    }
  }
  ARMCI_Barrier();
  if (bad) std::printf("nic_probe: rank %d: %d of %d rounds read back wrong data\n", me, bad, kRounds);
  else if (me == sender) std::printf("nic_probe: rank %d moved %d x 4 transfers of 64 KiB to rank %d, data right\n", me, kRounds, target);
  ARMCI_Free(mine);
  ARMCI_Finalize();
  return bad ? 1 : 0;
}

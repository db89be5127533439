// ARMCI_Malloc_local + ARMCI_Free_local the way Global Arrays uses them
// (scratch allocated and freed around every GA_Dgemm), against malloc + free
// of the same size with the same pages touched (first and last byte).  Every
// process of the job runs the loop at once, as GA's processes do.  Targets:
// 4 KiB - 64 KiB <= 1 us per pair; 1 MiB - 64 MiB <= 2x malloc + free.
//   armcirun -n 4 perf/alloc_bench [--csv FILE]
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "armci.h"
#include "message.h"
#include "perf/bench_util.hpp"

namespace {

void touch(void* p, std::size_t n) {
  auto* b = static_cast<volatile unsigned char*>(p);
  b[0] = 1;
  b[n - 1] = 1;
}

double max_over_procs(double v) {
  armci_msg_dgop(&v, 1, const_cast<char*>("max"));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  ARMCI_Init_args(&argc, &argv);
  const char* csv = nullptr;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--csv") == 0) csv = argv[i + 1];
  const int me = armci_msg_me();
  const std::vector<std::size_t> sizes = {4u << 10, 16u << 10, 64u << 10, 1u << 20,
                                          4u << 20, 24u << 20, 40u << 20, 64u << 20};
  FILE* out = csv && me == 0 ? std::fopen(csv, "w") : nullptr;
  if (out) std::fprintf(out, "bytes,armci_us,malloc_us,ratio\n");
  if (me == 0) {
    std::printf("ARMCI_Malloc_local + touch + ARMCI_Free_local vs malloc + touch + free, %d processes at once\n",
                armci_msg_nproc());
    std::printf("%8s %12s %12s %8s  %s\n", "bytes", "armci us", "malloc us", "ratio", "target");
  }
  int missed = 0;
  for (std::size_t n : sizes) {
    const int iters = n <= (64u << 10) ? 20000 : 200;
    ARMCI_Barrier();
    auto [ta, tm] = bench::per_call_paired(
        [&] {
          void* p = ARMCI_Malloc_local(static_cast<armci_size_t>(n));
          touch(p, n);
          ARMCI_Free_local(p);
        },
        [&] {
          void* p = std::malloc(n);
          touch(p, n);
          std::free(p);
        },
        iters);
    ta = max_over_procs(ta) * 1e6;
    tm = max_over_procs(tm) * 1e6;
    const double ratio = ta / tm;
    std::string target;
    bool met = true;
    if (n <= (64u << 10)) {
      met = ta <= 1.0;
      target = "<= 1 us";
    } else if (n >= (1u << 20)) {
      met = ratio <= 2.0;
      target = "<= 2x malloc";
    }
    if (!met) ++missed;
    if (me == 0) {
      std::printf("%8s %12.3f %12.3f %8.2f  %s %s\n", bench::size_text(n).c_str(), ta, tm, ratio,
                  target.c_str(), target.empty() ? "" : (met ? "MET" : "MISSED"));
      std::printf("RESULT alloc_bench local_alloc_free_%s %.4f us\n", bench::size_text(n).c_str(), ta);
      std::printf("RATIO alloc_bench_%s_vs_malloc %.3f\n", bench::size_text(n).c_str(), ratio);
      if (out) std::fprintf(out, "%zu,%.4f,%.4f,%.4f\n", n, ta, tm, ratio);
    }
  }
  if (out) std::fclose(out);
  if (me == 0) std::printf("alloc_bench: %s\n", missed ? "some targets MISSED" : "all targets MET");
  ARMCI_Finalize();
  return 0;
}

// Bandwidth between two processes on two hosts with large transfers in
// flight, for perf/rails_bench.sh (hosts with 1, 2 and 4 rate-limited NICs).
// One source, two runtimes: armci-ofi (non-blocking puts and gets, `window`
// in flight, then a fence) and, built with -DRAIL_MPI, MPI Isend/Irecv
// (the same window), as a user with several NICs would run instead.
//   rail_bench [--window W] [--total BYTES] SIZE...   (prints "RAIL <runtime> <op> <bytes> <MB/s>")
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(RAIL_MPI)
#include <mpi.h>
#else
#include "armci.h"
#include "message.h"
#endif

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  int window = 4;
  std::size_t total = std::size_t{64} << 20;  // bytes moved per row (each row takes total / rate)
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--window" && i + 1 < argc) window = std::atoi(argv[++i]);
    else if (a == "--total" && i + 1 < argc) total = std::strtoull(argv[++i], nullptr, 0);
    else sizes.push_back(std::strtoull(argv[i], nullptr, 0));
  }
  if (sizes.empty()) sizes = {std::size_t{1} << 20, std::size_t{4} << 20, std::size_t{16} << 20};
  std::size_t biggest = 0;
  for (std::size_t s : sizes) biggest = std::max(biggest, s);
  const std::size_t area = biggest * static_cast<std::size_t>(window);
#if defined(RAIL_MPI)
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  std::vector<char> buf(area, 1);
  for (std::size_t s : sizes) {
    const int reps = static_cast<int>(std::max<std::size_t>(1, total / (s * static_cast<std::size_t>(window))));
    std::vector<MPI_Request> rq(static_cast<std::size_t>(window));
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now();
    for (int r = 0; r < reps; ++r) {
      for (int w = 0; w < window; ++w) {
        char* p = buf.data() + static_cast<std::size_t>(w) * s;
        if (me == 0) MPI_Isend(p, static_cast<int>(s), MPI_BYTE, 1, w, MPI_COMM_WORLD, &rq[static_cast<std::size_t>(w)]);
        else if (me == 1) MPI_Irecv(p, static_cast<int>(s), MPI_BYTE, 0, w, MPI_COMM_WORLD, &rq[static_cast<std::size_t>(w)]);
        else rq[static_cast<std::size_t>(w)] = MPI_REQUEST_NULL;
      }
      MPI_Waitall(window, rq.data(), MPI_STATUSES_IGNORE);
    }
    char ack = 0;  // the receiver has everything
    if (me == 1) MPI_Send(&ack, 1, MPI_BYTE, 0, 99, MPI_COMM_WORLD);
    if (me == 0) MPI_Recv(&ack, 1, MPI_BYTE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const double t = now() - t0;
    if (me == 0)
      std::printf("RAIL mpi send %zu %.1f\n", s, static_cast<double>(s) * window * reps / t / 1e6);
    std::fflush(stdout);
  }
  MPI_Finalize();
#else
  ARMCI_Init_args(&argc, &argv);
  const int me = armci_msg_me();
  std::vector<void*> ptr(static_cast<std::size_t>(armci_msg_nproc()));
  if (ARMCI_Malloc(ptr.data(), static_cast<armci_size_t>(area)) != 0) {
    std::fprintf(stderr, "rail_bench: ARMCI_Malloc of %zu bytes failed\n", area);
    return 1;
  }
  std::vector<char> local(area, 1);
  char* remote = static_cast<char*>(ptr[1]);
  for (std::size_t s : sizes)
    for (const char* op : {"put", "get"}) {
      const int reps = static_cast<int>(std::max<std::size_t>(1, total / (s * static_cast<std::size_t>(window))));
      armci_msg_barrier();
      const double t0 = now();
      if (me == 0) {
        std::vector<armci_hdl_t> h(static_cast<std::size_t>(window));
        for (int r = 0; r < reps; ++r) {
          for (int w = 0; w < window; ++w) {
            ARMCI_INIT_HANDLE(&h[static_cast<std::size_t>(w)]);
            char* l = local.data() + static_cast<std::size_t>(w) * s;
            char* x = remote + static_cast<std::size_t>(w) * s;
            if (op[0] == 'p') ARMCI_NbPut(l, x, static_cast<int>(s), 1, &h[static_cast<std::size_t>(w)]);
            else ARMCI_NbGet(x, l, static_cast<int>(s), 1, &h[static_cast<std::size_t>(w)]);
          }
          for (auto& x : h) ARMCI_Wait(&x);
        }
        ARMCI_Fence(1);
        const double t = now() - t0;
        std::printf("RAIL ours %s %zu %.1f\n", op, s, static_cast<double>(s) * window * reps / t / 1e6);
        std::fflush(stdout);
      }
    }
  armci_msg_barrier();
  ARMCI_Free(ptr[static_cast<std::size_t>(me)]);
  ARMCI_Finalize();
#endif
  return 0;
}

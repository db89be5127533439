// coll_bench: the collectives GA codes call in their inner loops (GA_Sync's
// barrier, GA_Dgop's allreduce, GA_Brdcst) timed on every process, built
// twice so armci-ofi is measured next to MPI with the same processes:
//   default       armci_msg_barrier / armci_msg_dgop / armci_msg_brdcst;
//   COLL_MPI      MPI_Barrier / MPI_Allreduce / MPI_Bcast.
// NAS CG makes two world sums of one double per iteration step, so the
// small allreduce rows are what bound it across nodes.  The time of a row is
// the slowest process's mean over a loop, the median of five loops.
//
//   coll_bench --label NAME [--where WHERE] [--csv FILE]
#include <cstdio>
#include <string>
#include <vector>

#include "perf/bench_util.hpp"

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#if defined(COLL_MPI)
#include <mpi.h>
#else
extern "C" {
#include "armci.h"
#include "message.h"
}
#endif

using namespace bench;

namespace {

#if defined(COLL_MPI)
struct Backend {
  Backend(int* argc, char*** argv) { MPI_Init(argc, argv); }
  ~Backend() { MPI_Finalize(); }
  static const char* name() { return "mpi"; }
  int me() const { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }
  int nproc() const { int n; MPI_Comm_size(MPI_COMM_WORLD, &n); return n; }
  void barrier() { MPI_Barrier(MPI_COMM_WORLD); }
  void sum(double* x, int n) { MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }
  void max(double* x, int n) { MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); }
  void bcast(void* b, int len) { MPI_Bcast(b, len, MPI_BYTE, 0, MPI_COMM_WORLD); }
};
#else
struct Backend {
  Backend(int* argc, char*** argv) { ARMCI_Init_args(argc, argv); }
  ~Backend() { ARMCI_Finalize(); }
  static const char* name() { return "armci-ofi"; }
  int me() const { return armci_msg_me(); }
  int nproc() const { return armci_msg_nproc(); }
  void barrier() { armci_msg_barrier(); }
  void sum(double* x, int n) { armci_msg_dgop(x, n, const_cast<char*>("+")); }
  void max(double* x, int n) { armci_msg_dgop(x, n, const_cast<char*>("max")); }
  void bcast(void* b, int len) { armci_msg_brdcst(b, len, 0); }
};
#endif

struct Out {
  std::string label, where;
  FILE* csv = nullptr;
  void row(const char* op, std::size_t bytes, double seconds) {
    std::printf("%-10s %-8s %-10s %8s %11.2f\n", label.c_str(), where.c_str(), op, size_text(bytes).c_str(),
                seconds * 1e6);
    std::printf("RESULT coll_bench %s.%s.%s.%zu %.3f us\n", label.c_str(), where.c_str(), op, bytes, seconds * 1e6);
    if (csv) std::fprintf(csv, "%s,%s,%s,%zu,%g\n", label.c_str(), where.c_str(), op, bytes, seconds * 1e6);
    std::fflush(stdout);
  }
};

// Mean seconds per call on the slowest process, median of five loops.
template <typename F>
double timed(Backend& b, F&& f, int iters) {
  for (int i = 0; i < iters / 10 + 2; ++i) f();
  std::vector<double> t;
  for (int k = 0; k < 5; ++k) {
    b.barrier();
    const double s = now();
    for (int i = 0; i < iters; ++i) f();
    double mine = (now() - s) / iters;
    b.max(&mine, 1);
    t.push_back(mine);
  }
  return median(t);
}

}  // namespace

int main(int argc, char** argv) {
  Out out;
  out.label = Backend::name();
  out.where = "-";
  std::string csv;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--label" && i + 1 < argc) out.label = argv[++i];
    else if (a == "--where" && i + 1 < argc) out.where = argv[++i];
    else if (a == "--csv" && i + 1 < argc) csv = argv[++i];
  }
  Backend b(&argc, &argv);
  const bool lead = b.me() == 0;
  if (lead) {
    if (!csv.empty()) out.csv = std::fopen(csv.c_str(), "a");
    std::printf("coll_bench: %s (%s), %d processes\n%-10s %-8s %-10s %8s %11s\n", Backend::name(),
                out.where.c_str(), b.nproc(), "runtime", "where", "operation", "bytes", "us");
  }
  auto report = [&](const char* op, std::size_t bytes, double s) {
    if (lead) out.row(op, bytes, s);
  };
  report("barrier", 0, timed(b, [&] { b.barrier(); }, 2000));
  // Sums whose exact value is known, checked after timing: a collective
  // that is fast but wrong must not produce a row.
  for (int n : {1, 16, 1024, 16384}) {
    std::vector<double> x(static_cast<std::size_t>(n));
    const int iters = n >= 16384 ? 100 : n >= 1024 ? 500 : 2000;
    const double s = timed(b, [&] { b.sum(x.data(), n); }, iters);
    for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = b.me() + i;
    b.sum(x.data(), n);
    const double np = b.nproc();
    for (int i = 0; i < n; ++i)
      if (x[static_cast<std::size_t>(i)] != np * (np - 1) / 2 + np * i) {
        std::fprintf(stderr, "coll_bench: process %d: sum of %d doubles wrong at %d: %g\n", b.me(), n, i,
                     x[static_cast<std::size_t>(i)]);
        return 1;
      }
    report("allreduce", static_cast<std::size_t>(n) * 8, s);
  }
  for (int len : {8, 65536}) {
    std::vector<char> buf(static_cast<std::size_t>(len));
    report("bcast", static_cast<std::size_t>(len), timed(b, [&] { b.bcast(buf.data(), len); }, len > 8 ? 300 : 2000));
  }
  if (out.csv) std::fclose(out.csv);
  b.barrier();
  return 0;
}

// coll_bench: the collectives GA codes call in their inner loops (GA_Sync's
// barrier, GA_Dgop's allreduce, GA_Brdcst), 8 B to 1 MiB, timed on every
// process.  Built twice:
//   default       armci_msg_barrier / armci_msg_dgop / armci_msg_brdcst, and
//                 with --paired (in a job MPI started, as every GA job is)
//                 MPI_Barrier / MPI_Allreduce / MPI_Bcast on a duplicate of
//                 MPI_COMM_WORLD too, in alternated rounds of the same job;
//   COLL_MPI      MPI only (the MPI-only job next to a PMIx-only run of ours).
// NAS CG makes two world sums of one double per iteration step, so the
// small allreduce rows are what bound it across nodes.  The time of a row is
// the slowest process's mean over a loop; alone, the median of five loops;
// paired, each runtime's median over ROUNDS rounds whose first runtime
// alternates, and a target line per row judged on the median of the
// rounds' MPI / ours ratios (>= 1: ours at least as fast).
//
//   coll_bench --label NAME [--where WHERE] [--csv FILE] [--paired] [--rounds N] [--max BYTES]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
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
#if ARMCI_OFI_HAVE_MPI
#define COLL_PAIRED 1  // armci.h brought mpi.h: the paired mode is available
#endif
#endif

using namespace bench;

namespace {

// One runtime's collectives.
struct Runtime {
  const char* name;
  std::function<void()> barrier;
  std::function<void(double*, int)> sum;
  std::function<void(double*, int)> max;
  std::function<void(void*, int)> bcast;
};

#if defined(COLL_MPI) || defined(COLL_PAIRED)
Runtime mpi_runtime(MPI_Comm c) {
  return {"mpi",
          [c] { MPI_Barrier(c); },
          [c](double* x, int n) { MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, c); },
          [c](double* x, int n) { MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_MAX, c); },
          [c](void* b, int len) { MPI_Bcast(b, len, MPI_BYTE, 0, c); }};
}
#endif

#if !defined(COLL_MPI)
Runtime ours_runtime() {
  return {"armci-ofi",
          [] { armci_msg_barrier(); },
          [](double* x, int n) { armci_msg_dgop(x, n, const_cast<char*>("+")); },
          [](double* x, int n) { armci_msg_dgop(x, n, const_cast<char*>("max")); },
          [](void* b, int len) { armci_msg_brdcst(b, len, 0); }};
}
#endif

struct Out {
  std::string label, where;
  FILE* csv = nullptr;
  void row(const char* runtime, const char* op, std::size_t bytes, double seconds) {
    std::printf("%-10s %-8s %-10s %8s %11.2f\n", runtime, where.c_str(), op, size_text(bytes).c_str(), seconds * 1e6);
    std::printf("RESULT coll_bench %s.%s.%s.%zu %.3f us\n", runtime, where.c_str(), op, bytes, seconds * 1e6);
    if (csv) std::fprintf(csv, "%s,%s,%s,%zu,%g\n", runtime, where.c_str(), op, bytes, seconds * 1e6);
    std::fflush(stdout);
  }
};

// Mean seconds per call on the slowest process over one loop (warmed).
double loop(const Runtime& r, const std::function<void()>& f, int iters) {
  for (int i = 0; i < iters / 10 + 2; ++i) f();
  r.barrier();
  const double s = now();
  for (int i = 0; i < iters; ++i) f();
  double mine = (now() - s) / iters;
  r.max(&mine, 1);
  return mine;
}

struct Row {
  const char* op;
  std::size_t bytes;
  int iters;
  std::function<void(const Runtime&)> call;     // one collective
  std::function<bool(const Runtime&)> check;    // its result on known data (after timing)
};

std::vector<Row> rows(int me, int np, std::size_t max) {
  std::vector<Row> out;
  out.push_back({"barrier", 0, 2000, [](const Runtime& r) { r.barrier(); }, nullptr});
  for (std::size_t bytes : {std::size_t{8}, std::size_t{128}, std::size_t{8} << 10, std::size_t{128} << 10,
                            std::size_t{1} << 20}) {
    if (bytes > max) break;
    const int n = static_cast<int>(bytes / 8);
    auto x = std::make_shared<std::vector<double>>(static_cast<std::size_t>(n));
    const int iters = bytes >= (1u << 20) ? 20 : bytes >= (128u << 10) ? 100 : bytes >= 8192 ? 500 : 2000;
    // Sums whose exact value is known: a collective that is fast but wrong
    // must not produce a row.
    auto check = [x, n, me, np](const Runtime& r) {
      for (int i = 0; i < n; ++i) (*x)[static_cast<std::size_t>(i)] = me + i;
      r.sum(x->data(), n);
      for (int i = 0; i < n; ++i)
        if ((*x)[static_cast<std::size_t>(i)] != np * (np - 1) / 2.0 + static_cast<double>(np) * i) return false;
      return true;
    };
    out.push_back({"allreduce", bytes, iters, [x, n](const Runtime& r) { r.sum(x->data(), n); }, check});
  }
  for (std::size_t bytes : {std::size_t{8}, std::size_t{64} << 10, std::size_t{1} << 20}) {
    if (bytes > max) break;
    auto buf = std::make_shared<std::vector<char>>(bytes);
    const int len = static_cast<int>(bytes);
    auto check = [buf, len, me](const Runtime& r) {
      for (int i = 0; i < len; ++i) (*buf)[static_cast<std::size_t>(i)] = static_cast<char>(me == 0 ? i * 7 : -1);
      r.bcast(buf->data(), len);
      for (int i = 0; i < len; ++i)
        if ((*buf)[static_cast<std::size_t>(i)] != static_cast<char>(i * 7)) return false;
      return true;
    };
    out.push_back({"bcast", bytes, bytes >= (1u << 20) ? 30 : bytes > 8 ? 300 : 2000,
                   [buf, len](const Runtime& r) { r.bcast(buf->data(), len); }, check});
  }
  return out;
}

bool checked(const Row& row, const Runtime& r, int me) {
  if (!row.check || row.check(r)) return true;
  std::fprintf(stderr, "coll_bench: process %d: %s of %zu bytes on %s gave a wrong result\n", me, row.op, row.bytes,
               r.name);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  Out out;
  out.where = "-";
  std::string csv;
  bool paired = false;  // COLL_MPI builds ignore it
  int rounds = 5;
  std::size_t max = std::size_t{1} << 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--label" && i + 1 < argc) out.label = argv[++i];
    else if (a == "--where" && i + 1 < argc) out.where = argv[++i];
    else if (a == "--csv" && i + 1 < argc) csv = argv[++i];
    else if (a == "--paired") paired = true;
    else if (a == "--rounds" && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
    else if (a == "--max" && i + 1 < argc) max = std::strtoul(argv[++i], nullptr, 0);
  }
  std::vector<Runtime> rts;
  int me = 0, np = 1;
#if defined(COLL_MPI)
  (void)paired;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  rts.push_back(mpi_runtime(MPI_COMM_WORLD));
#else
#if defined(COLL_PAIRED)
  MPI_Comm dup = MPI_COMM_NULL;
  if (paired) {
    MPI_Init(&argc, &argv);  // as a GA program does, then ARMCI on it
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  }
#else
  if (paired) {
    std::fprintf(stderr, "coll_bench: --paired needs a build with MPI\n");
    return 2;
  }
#endif
  ARMCI_Init_args(&argc, &argv);
  me = armci_msg_me();
  np = armci_msg_nproc();
  rts.push_back(ours_runtime());
#if defined(COLL_PAIRED)
  if (paired) rts.push_back(mpi_runtime(dup));
#endif
#endif
  const bool lead = me == 0;
  if (!csv.empty() && lead) out.csv = std::fopen(csv.c_str(), "a");
  if (lead)
    std::printf("coll_bench: %s%s (%s), %d processes\n%-10s %-8s %-10s %8s %11s\n", rts[0].name,
                rts.size() > 1 ? " and mpi, alternated rounds" : "", out.where.c_str(), np, "runtime", "where",
                "operation", "bytes", "us");
  int rc = 0;
  for (const Row& row : rows(me, np, max)) {
    auto call = [&row](const Runtime& r) { return [&row, &r] { row.call(r); }; };
    if (rts.size() == 1) {
      std::vector<double> t;
      for (int k = 0; k < 5; ++k) t.push_back(loop(rts[0], call(rts[0]), row.iters));
      if (!checked(row, rts[0], me)) rc = 1;
      else if (lead) out.row(out.label.empty() ? rts[0].name : out.label.c_str(), row.op, row.bytes, median(t));
      continue;
    }
    // Paired: ours first in even rounds, MPI first in odd ones.
    std::vector<double> ours, theirs, ratio;
    for (int k = 0; k < rounds; ++k) {
      double o, m;
      if (k % 2 == 0) {
        o = loop(rts[0], call(rts[0]), row.iters);
        m = loop(rts[1], call(rts[1]), row.iters);
      } else {
        m = loop(rts[1], call(rts[1]), row.iters);
        o = loop(rts[0], call(rts[0]), row.iters);
      }
      ours.push_back(o);
      theirs.push_back(m);
      ratio.push_back(m / o);
    }
    if (!checked(row, rts[0], me) || !checked(row, rts[1], me)) {
      rc = 1;
      continue;
    }
    if (!lead) continue;
    out.row(out.label.empty() ? rts[0].name : out.label.c_str(), row.op, row.bytes, median(ours));
    out.row(rts[1].name, row.op, row.bytes, median(theirs));
    const double r = median(ratio);
    const auto [lo, hi] = std::minmax_element(ratio.begin(), ratio.end());
    std::printf("RATIO coll_bench.mpi_over_ours.%s.%s.%zu %.3f\n", out.where.c_str(), row.op, row.bytes, r);
    std::printf("target coll %s %s %s: MPI / armci-ofi %.2fx (>= 1.0)  %s  [median of %d rounds, %.2f-%.2fx; "
                "ours %.2f us, MPI %.2f us]\n",
                out.where.c_str(), row.op, size_text(row.bytes).c_str(), r, r >= 1.0 ? "MET" : "MISSED", rounds, *lo,
                *hi, median(ours) * 1e6, median(theirs) * 1e6);
    std::fflush(stdout);
  }
  if (out.csv) std::fclose(out.csv);
#if defined(COLL_MPI)
  MPI_Finalize();
#else
  ARMCI_Finalize();
#if defined(COLL_PAIRED)
  if (paired) {
    MPI_Comm_free(&dup);
    MPI_Finalize();
  }
#endif
#endif
  return rc;
}

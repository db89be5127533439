// NAS CG on MPI, written the way perf/nas_cg_ga.cpp's plain version is: the
// vectors and the matrix rows in one block per process, the whole input
// vector of a product gathered (MPI_Allgatherv), dot products reduced over
// all processes (MPI_Allreduce).  The solver is perf/nas_cg.hpp's.
//
// usage: nas_cg_mpi [--class S|W|A] [--csv FILE] [--label L]
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "perf/nas_cg.hpp"

namespace {

using nas_cg::block_start;

class MpiLayout {
 public:
  explicit MpiLayout(int n) : n(n) {
    int np = 1, me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    rows_first = vec_first = block_start(n, me, np);
    rows_last = vec_last = block_start(n, me + 1, np);
    for (int p = 0; p < np; ++p) {
      offsets_.push_back(block_start(n, p, np));
      counts_.push_back(block_start(n, p + 1, np) - offsets_.back());
    }
    for (auto& v : local_) v.resize(static_cast<std::size_t>(vec_last - vec_first));
    whole_.resize(static_cast<std::size_t>(n));
  }

  double* local(int v) { return local_[v].data(); }
  const double* whole(int v) {
    MPI_Allgatherv(local_[v].data(), vec_last - vec_first, MPI_DOUBLE, whole_.data(), counts_.data(),
                   offsets_.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    return whole_.data();
  }
  void store_rows(int v, const double* y) { std::copy(y, y + (rows_last - rows_first), local_[v].data()); }
  void sum(double* d, int k) { MPI_Allreduce(MPI_IN_PLACE, d, k, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }
  void barrier() { MPI_Barrier(MPI_COMM_WORLD); }
  double now() const { return MPI_Wtime(); }

  int n;
  int rows_first = 0, rows_last = 0, vec_first = 0, vec_last = 0;

 private:
  std::vector<double> local_[nas_cg::kVecs];
  std::vector<double> whole_;
  std::vector<int> offsets_, counts_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int np = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  char cls = 'W';
  std::string csv_path, label = "mpi";
  bool usage = false;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--class" && i + 1 < argc) cls = argv[++i][0];
    else if (s == "--csv" && i + 1 < argc) csv_path = argv[++i];
    else if (s == "--label" && i + 1 < argc) label = argv[++i];
    else usage = true;
  }
  const auto c = nas_cg::find_class(cls);
  if (usage || !c) {
    if (me == 0) std::fprintf(stderr, "usage: nas_cg_mpi [--class S|W|A] [--csv FILE] [--label L]\n");
    MPI_Finalize();
    return 2;
  }
  // Nodes as MPI sees them (processes sharing memory).
  MPI_Comm shm;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shm);
  int shm_rank = 0, leaders = 0;
  MPI_Comm_rank(shm, &shm_rank);
  int leader = shm_rank == 0 ? 1 : 0;
  MPI_Allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_free(&shm);
  if (me == 0) nas_cg::print_header(*c, "on MPI", np, leaders);

  MpiLayout layout(c->na);
  const nas_cg::Rows a = nas_cg::make_matrix(*c, layout.rows_first, layout.rows_last);
  nas_cg::Solver<MpiLayout> solver(*c, a, layout);
  nas_cg::Row row;
  row.version = "mpi";
  row.procs = np;
  row.nodes = leaders;
  row.set(solver.run());
  struct {
    double seconds;
    int rank;
  } longest = {row.t[0], me};
  MPI_Allreduce(MPI_IN_PLACE, &longest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  MPI_Bcast(row.t, 5, MPI_DOUBLE, longest.rank, MPI_COMM_WORLD);  // the times the slowest process saw
  int ok = row.verified ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  row.verified = ok == 1;
  if (me == 0) {
    nas_cg::print_row(*c, row);
    std::printf("RESULT nas_cg_%s.%c.mpi s_per_iteration %.6f s\n", label.c_str(), c->name, row.t[0] / c->niter);
    if (FILE* csv = nas_cg::open_csv(csv_path)) {
      nas_cg::csv_row(csv, *c, label, row);
      std::fclose(csv);
    }
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}

// NAS CG on Global Arrays, two ways (perf/nas_cg.hpp has the solver):
//   plain  (groups = 1): each vector is one GA array distributed over all
//          processes; a matrix-vector product gets the whole input vector
//          from every owner, and every dot product is a world reduction.
//   groups (groups = G): the world is split into G processor groups of
//          consecutive ranks (with ranks placed node by node, a group per
//          node); every group holds its own copy of the vectors, distributed
//          over its members, and repeats the cheap vector updates on it.
//          The matrix rows stay spread over all processes: each process
//          puts its rows of a product into every group's copy, then one world
//          synchronisation; the whole input vector and every dot product
//          come from the group's own copy (shared memory when a group is a
//          node).  The copies of a vector are one world array of G n elements
//          whose segment g is distributed over group g, so the puts into other
//          groups' copies are plain GA puts.  Products land in one of two
//          arrays in turn: a group that runs ahead writes the next product
//          while a slower group still reads the last one.
//
// usage: nas_cg_ga [--class S|W|A] [--groups G[,G...]] [--csv FILE] [--label L]
//   default groups: 1 and the number of nodes.  Exits 1 if a run does not verify.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "ga/ga.h"
#include "message.h"
#include "perf/nas_cg.hpp"

namespace {

using nas_cg::block_start;

class GaLayout {
 public:
  GaLayout(int n, int groups) : n(n), groups_(groups) {
    const int np = GA_Nnodes(), me = GA_Nodeid();
    members_ = np / groups;
    group_ = me / members_;
    const int j = me % members_;
    rows_first = block_start(n, me, np);
    rows_last = block_start(n, me + 1, np);
    vec_first = block_start(n, j, members_);
    vec_last = block_start(n, j + 1, members_);
    world_ = GA_Pgroup_get_world();
    grp_ = groups == 1 ? world_ : GA_Pgroup_split(world_, groups);  // group g: ranks g m .. g m + m - 1
    // Segment g (copy g) split over group g's members, member k owning block k.
    std::vector<int> map(np);
    for (int p = 0; p < np; ++p) map[p] = (p / members_) * n + block_start(n, p % members_, members_);
    int dims[1] = {groups * n}, block[1] = {np};
    static const char* names[nas_cg::kVecs] = {"x", "z", "p", "q", "r"};
    for (int v = 0; v < nas_cg::kVecs; ++v) {
      g_[v] = NGA_Create_irreg(C_DBL, 1, dims, const_cast<char*>(names[v]), block, map.data());
      int lo[1] = {group_ * n + vec_first}, hi[1] = {group_ * n + vec_last - 1}, ld[1] = {0};
      NGA_Access(g_[v], lo, hi, &local_[v], ld);
    }
    if (groups > 1)
      for (int& t : products_) t = NGA_Create_irreg(C_DBL, 1, dims, const_cast<char*>("A v"), block, map.data());
    whole_.resize(static_cast<std::size_t>(n));
    puts_.resize(static_cast<std::size_t>(groups));
  }
  ~GaLayout() {
    for (int v = nas_cg::kVecs - 1; v >= 0; --v) {
      int lo[1] = {group_ * n + vec_first}, hi[1] = {group_ * n + vec_last - 1};
      NGA_Release_update(g_[v], lo, hi);
      GA_Destroy(g_[v]);
    }
    if (groups_ > 1)
      for (int t : products_) GA_Destroy(t);
    if (grp_ != world_) GA_Pgroup_destroy(grp_);
  }
  GaLayout(const GaLayout&) = delete;
  GaLayout& operator=(const GaLayout&) = delete;

  double* local(int v) { return local_[v]; }

  const double* whole(int v) {
    GA_Pgroup_sync(grp_);  // the members' blocks of v are final
    int lo[1] = {group_ * n}, hi[1] = {group_ * n + n - 1}, ld[1] = {n};
    NGA_Get(g_[v], lo, hi, whole_.data(), ld);
    return whole_.data();
  }

  void store_rows(int v, const double* y) {
    if (groups_ == 1) {  // a process's rows are its own block: no one else needs them yet
      std::copy(y, y + (rows_last - rows_first), local_[v]);
      return;
    }
    const int t = products_[turn_];
    turn_ ^= 1;
    for (int g = 0; g < groups_; ++g) {
      int lo[1] = {g * n + rows_first}, hi[1] = {g * n + rows_last - 1}, ld[1] = {0};
      NGA_NbPut(t, lo, hi, const_cast<double*>(y), ld, &puts_[g]);
    }
    for (auto& hdl : puts_) NGA_NbWait(&hdl);
    GA_Sync();  // every process's rows are in every copy
    int lo[1] = {group_ * n + vec_first}, hi[1] = {group_ * n + vec_last - 1}, ld[1] = {0};
    NGA_Get(t, lo, hi, local_[v], ld);
  }

  void sum(double* d, int k) { GA_Pgroup_dgop(grp_, d, k, const_cast<char*>("+")); }
  void barrier() { GA_Sync(); }
  double now() const { return armci_timer(); }

  // True if every member of this process's group is on its node.
  bool group_is_node() const {
    int same = 1;
    for (int k = 0; k < members_; ++k)
      if (GA_Cluster_proc_nodeid(group_ * members_ + k) != GA_Cluster_nodeid()) same = 0;
    GA_Igop(&same, 1, const_cast<char*>("min"));
    return same == 1;
  }

  int n;
  int rows_first = 0, rows_last = 0, vec_first = 0, vec_last = 0;

 private:
  int groups_, members_ = 1, group_ = 0;
  int world_ = 0, grp_ = 0;
  int g_[nas_cg::kVecs] = {};
  int products_[2] = {};
  int turn_ = 0;
  double* local_[nas_cg::kVecs] = {};
  std::vector<double> whole_;
  std::vector<ga_nbhdl_t> puts_;
};

// The run's times as the process that took longest saw them.
void slowest(nas_cg::Row& row) {
  double longest = row.t[0];
  GA_Dgop(&longest, 1, const_cast<char*>("max"));
  int who = row.t[0] == longest ? GA_Nodeid() : GA_Nnodes();
  GA_Igop(&who, 1, const_cast<char*>("min"));
  GA_Brdcst(row.t, sizeof row.t, who);
}

std::vector<int> parse_groups(const std::string& s) {
  std::vector<int> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::atoi(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  GA_Initialize_args(&argc, &argv);
  const int np = GA_Nnodes(), me = GA_Nodeid(), nodes = GA_Cluster_nnodes();
  char cls = 'W';
  std::vector<int> groups = {1};
  if (nodes > 1 && np % nodes == 0) groups.push_back(nodes);
  std::string csv_path, label = "ga";
  bool usage = false;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--class" && i + 1 < argc) cls = argv[++i][0];
    else if (s == "--groups" && i + 1 < argc) groups = parse_groups(argv[++i]);
    else if (s == "--csv" && i + 1 < argc) csv_path = argv[++i];
    else if (s == "--label" && i + 1 < argc) label = argv[++i];
    else usage = true;
  }
  const auto c = nas_cg::find_class(cls);
  for (int g : groups) usage = usage || g < 1 || np % g != 0;
  if (usage || !c) {
    if (me == 0)
      std::fprintf(stderr, "usage: nas_cg_ga [--class S|W|A] [--groups G[,G...]] [--csv FILE] [--label L]\n"
                           "  each G divides the process count (%d)\n", np);
    GA_Terminate();
    return 2;
  }
  if (me == 0) nas_cg::print_header(*c, "on GA", np, nodes);
  FILE* csv = me == 0 ? nas_cg::open_csv(csv_path) : nullptr;
  bool all_ok = true;
  double plain_s = 0;
  // Matrix rows are spread over all processes alike in every version.
  const nas_cg::Rows a = nas_cg::make_matrix(*c, block_start(c->na, me, np), block_start(c->na, me + 1, np));
  for (int g : groups) {
    GaLayout layout(c->na, g);
    const bool per_node = layout.group_is_node();
    nas_cg::Solver<GaLayout> solver(*c, a, layout);
    nas_cg::Row row;
    row.version = g == 1 ? "plain" : "groups";
    row.procs = np;
    row.nodes = nodes;
    row.groups = g;
    row.set(solver.run());
    slowest(row);
    int ok = row.verified ? 1 : 0;
    GA_Igop(&ok, 1, const_cast<char*>("min"));
    row.verified = ok == 1;
    all_ok = all_ok && row.verified;
    if (g == 1) plain_s = row.t[0];
    if (me == 0) {
      nas_cg::print_row(*c, row, g > 1 && !per_node ? "  (a group spans nodes)" : "");
      std::printf("RESULT nas_cg_%s.%c.%s.g%d s_per_iteration %.6f s\n", label.c_str(), c->name,
                  row.version.c_str(), g, row.t[0] / c->niter);
      if (g > 1 && plain_s > 0)
        std::printf("RATIO nas_cg_%s.%c.groups_%d_speedup_over_plain %.3f\n", label.c_str(), c->name, g,
                    plain_s / row.t[0]);
      nas_cg::csv_row(csv, *c, label, row);
    }
  }
  if (csv) std::fclose(csv);
  GA_Terminate();
  return all_ok ? 0 : 1;
}

// ga_taskfarm: the task farm of GA processor groups (the molecular-dynamics
// and many-replica pattern).  The world is split into G groups that take
// tasks from one shared counter (NGA_Read_inc on a world array); a task is a
// small GA computation on its group's own arrays: fill A and B, C = A B
// (GA_Dgemm), then ||C||^2 (GA_Ddot).  G = 1 is the baseline: every task
// spans the whole world, so its synchronisation and communication reach every
// process (and every node) while its work does not grow.  Each task's result
// is known in closed form (C = n a everywhere: ||C||^2 = n^4 a^2), so the
// summed results check that every task ran exactly once.
//
// usage: ga_taskfarm [--tasks T] [--n N] [--csv FILE]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "armci.h"
#include "ga/ga.h"
#include "message.h"

namespace {

struct Options {
  long tasks = 64;
  int n = 96;
  std::string csv;
};

struct Result {
  int groups = 0;
  double seconds = 0;
  double checksum = 0;
  long most_tasks = 0, fewest_tasks = 0;  // tasks taken by the busiest / idlest group
  long taken = 0;                         // by all groups: must be the task count
};

double task_value(long t) { return static_cast<double>(t % 5 + 1); }

Result farm(int ngroups, const Options& o) {
  const int world = GA_Pgroup_get_world();
  int counter_dims[1] = {1};
  const int counter = NGA_Create(C_LONG, 1, counter_dims, const_cast<char*>("task counter"), nullptr);
  GA_Zero(counter);
  const int grp = ngroups == 1 ? world : GA_Pgroup_split(world, ngroups);
  GA_Pgroup_set_default(grp);
  int dims[2] = {o.n, o.n};
  const int a = NGA_Create(C_DBL, 2, dims, const_cast<char*>("A"), nullptr);
  const int b = NGA_Create(C_DBL, 2, dims, const_cast<char*>("B"), nullptr);
  const int c = NGA_Create(C_DBL, 2, dims, const_cast<char*>("C"), nullptr);
  const bool leader = GA_Pgroup_nodeid(grp) == 0;
  double mine = 0;
  long taken = 0;
  GA_Pgroup_sync(world);
  const double t0 = armci_timer();
  for (;;) {
    long t = 0;
    int zero[1] = {0};
    if (leader) t = NGA_Read_inc(counter, zero, 1);
    GA_Pgroup_brdcst(grp, &t, sizeof t, 0);
    if (t >= o.tasks) break;
    double v = task_value(t), one = 1;
    GA_Fill(a, &v);
    GA_Fill(b, &one);
    GA_Dgemm('N', 'N', o.n, o.n, o.n, 1.0, a, b, 0.0, c);
    const double d = GA_Ddot(c, c);
    if (leader) {
      mine += d;
      ++taken;
    }
  }
  double elapsed = armci_timer() - t0;
  GA_Destroy(c);
  GA_Destroy(b);
  GA_Destroy(a);
  GA_Pgroup_set_default(world);
  if (grp != world) GA_Pgroup_destroy(grp);
  GA_Destroy(counter);
  Result r;
  r.groups = ngroups;
  GA_Dgop(&elapsed, 1, const_cast<char*>("max"));
  r.seconds = elapsed;
  GA_Dgop(&mine, 1, const_cast<char*>("+"));
  r.checksum = mine;
  long total = leader ? taken : 0, most = leader ? taken : 0, fewest = leader ? taken : o.tasks + 1;
  GA_Lgop(&total, 1, const_cast<char*>("+"));
  r.taken = total;
  GA_Lgop(&most, 1, const_cast<char*>("max"));
  GA_Lgop(&fewest, 1, const_cast<char*>("min"));
  r.most_tasks = most;
  r.fewest_tasks = fewest;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  GA_Initialize_args(&argc, &argv);
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "--tasks" && i + 1 < argc) o.tasks = std::atol(argv[++i]);
    else if (s == "--n" && i + 1 < argc) o.n = std::atoi(argv[++i]);
    else if (s == "--csv" && i + 1 < argc) o.csv = argv[++i];
    else {
      if (GA_Nodeid() == 0) std::fprintf(stderr, "usage: ga_taskfarm [--tasks T] [--n N] [--csv FILE]\n");
      GA_Terminate();
      return 2;
    }
  }
  const int np = GA_Nnodes(), me = GA_Nodeid();
  double expect = 0;
  for (long t = 0; t < o.tasks; ++t) expect += std::pow(static_cast<double>(o.n), 4) * task_value(t) * task_value(t);
  FILE* csv = me == 0 && !o.csv.empty() ? std::fopen(o.csv.c_str(), "w") : nullptr;
  if (csv) std::fprintf(csv, "groups,procs_per_group,tasks,n,seconds,tasks_per_s,speedup\n");
  if (me == 0)
    std::printf("ga_taskfarm: %ld tasks of C = A B (%d x %d) and ||C||^2, %d processes on %d node(s)\n"
                "%7s %9s %10s %10s %9s %13s\n",
                o.tasks, o.n, o.n, np, GA_Cluster_nnodes(), "groups", "procs/grp", "seconds", "tasks/s",
                "speedup", "tasks/group");
  double world_s = 0;
  bool all_ok = true;
  farm(1, o);  // warm-up: first contact, first allocations
  for (int g = 1; g <= np; g *= 2) {
    if (np % g) continue;
    const Result r = farm(g, o);
    if (g == 1) world_s = r.seconds;
    const bool ok = std::fabs(r.checksum - expect) <= 1e-9 * expect && r.taken == o.tasks;
    all_ok = all_ok && ok;
    if (me == 0) {
      std::printf("%7d %9d %10.4f %10.1f %8.2fx %6ld..%-6ld%s\n", g, np / g, r.seconds, o.tasks / r.seconds,
                  world_s / r.seconds, r.fewest_tasks, r.most_tasks, ok ? "" : "  WRONG: checksum or task count");
      std::printf("RESULT ga_taskfarm groups_%d_seconds %.4f s\n", g, r.seconds);
      if (g > 1) std::printf("RATIO ga_taskfarm_groups_%d_speedup_over_world %.3f\n", g, world_s / r.seconds);
      if (csv)
        std::fprintf(csv, "%d,%d,%ld,%d,%.6f,%.3f,%.4f\n", g, np / g, o.tasks, o.n, r.seconds, o.tasks / r.seconds,
                     world_s / r.seconds);
    }
  }
  if (csv) std::fclose(csv);
  if (me == 0 && !all_ok)
    std::printf("ga_taskfarm: a run did not take each of the %ld tasks once or its checksum differs from %g\n", o.tasks,
                expect);
  GA_Terminate();
  return all_ok ? 0 : 1;
}

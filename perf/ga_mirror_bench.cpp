// ga_mirror_bench: what mirrored arrays (one copy per node) buy and cost.
//   get:   NGA_Get latency of 8 B .. 1 MiB patches from a distributed array
//          and from a mirrored one, the patch in a block owned by a process
//          of my node (intra) and of another node (inter).  A mirrored get
//          reads my node's copy wherever the block's owner lives.
//   merge: GA_Merge_mirrored time for arrays of several sizes whose every
//          node copy was written in full since the last merge (the most a
//          merge moves); run it at 1..4 (virtual) nodes to see how it grows.
//          Also the CPU per node a merge and a GA_Sync take (the job's
//          process CPU time over the nodes): merge_cpu and merge_sync_cpu
//          rows of the CSV.
// Process 0 reports; times are medians over trials.  --where labels the
// merge rows of the CSV and RESULT lines (e.g. "hosts" for namespace hosts,
// "blocked" for run-bench's runs with blocking waits; default "-").
//
//   ga_mirror_bench get|merge [--csv FILE] [--max BYTES] [--where TAG]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ga/ga.h"
#include "perf/bench_util.hpp"

using namespace bench;

namespace {

constexpr int kPerProc = 1 << 17;  // doubles per process: 1 MiB

// The first process of another node (inter) and another process of my node
// (intra) as seen from process 0; -1 when there is none.
void partners(int& intra, int& inter) {
  intra = inter = -1;
  const int n = GA_Nnodes(), mine = GA_Cluster_proc_nodeid(0);
  for (int p = 1; p < n; ++p) {
    const bool same = GA_Cluster_proc_nodeid(p) == mine;
    if (same && intra < 0) intra = p;
    if (!same && inter < 0) inter = p;
  }
}

void get_bench(FILE* csv, std::size_t max) {
  const int me = GA_Nodeid(), n = GA_Nnodes();
  int dims[1] = {n * kPerProc}, chunk[1] = {kPerProc};
  char dn[] = "distributed", mn[] = "mirrored";
  const int d = NGA_Create(C_DBL, 1, dims, dn, chunk);
  const int m = NGA_Create_config(C_DBL, 1, dims, mn, chunk, GA_Pgroup_get_mirror());
  GA_Zero(d);
  GA_Zero(m);
  GA_Sync();
  int intra, inter;
  partners(intra, inter);
  if (me == 0) {
    std::printf("ga_mirror_bench get: %d processes on %d node(s), %s; process 0 reads from process %d (intra) and %d (inter)\n",
                n, GA_Cluster_nnodes(), GA_Is_mirrored(m) ? "mirrored" : "one node: the mirrored array is plain", intra, inter);
    std::printf("%-6s %8s %14s %12s %8s\n", "where", "bytes", "distributed_us", "mirrored_us", "ratio");
    std::vector<double> buf(max / 8 + 1);
    double worst = 0;  // smallest distributed/mirrored ratio, inter-node, 8 B..1 KiB
    for (const auto& [where, p] : {std::pair<const char*, int>{"intra", intra}, {"inter", inter}}) {
      if (p < 0) continue;
      int lo[1] = {p * kPerProc}, hi[1], ld[1] = {1};
      for (std::size_t b = 8; b <= max; b *= 4) {
        hi[0] = lo[0] + static_cast<int>(b / 8) - 1;
        const int it = iters_for(b, 16u << 20, 5, 2000);
        const double td = per_call([&] { NGA_Get(d, lo, hi, buf.data(), ld); }, it);
        const double tm = per_call([&] { NGA_Get(m, lo, hi, buf.data(), ld); }, it);
        std::printf("%-6s %8s %14.3f %12.3f %8.1f\n", where, size_text(b).c_str(), td * 1e6, tm * 1e6, td / tm);
        std::printf("RESULT ga_mirror_bench get.%s.distributed.%zu %.4f us\n", where, b, td * 1e6);
        std::printf("RESULT ga_mirror_bench get.%s.mirrored.%zu %.4f us\n", where, b, tm * 1e6);
        std::printf("RATIO ga_mirror_bench.get.%s.distributed_over_mirrored.%zu %.2f\n", where, b, td / tm);
        if (csv) std::fprintf(csv, "get,%s,%d,%zu,%g,%g\n", where, GA_Cluster_nnodes(), b, td * 1e6, tm * 1e6);
        if (p == inter && b <= 1024) worst = worst == 0 ? td / tm : std::min(worst, td / tm);
        std::fflush(stdout);
      }
    }
    // Mirrored arrays are for small, frequent reads of data that lives far away.
    if (inter >= 0)
      std::printf("target %-44s %.1fx (>= 20x)  %s\n", "inter-node 8 B..1 KiB get, mirrored vs distributed", worst,
                  worst >= 20 ? "MET" : "MISSED");
  }
  GA_Sync();
  GA_Destroy(m);
  GA_Destroy(d);
}

void merge_bench(FILE* csv, std::size_t max, const std::string& where) {
  const int me = GA_Nodeid();
  const int nodes = GA_Cluster_nnodes(), node = GA_Cluster_nodeid();
  const int local = GA_Cluster_nprocs(node);
  const std::string tag = where == "-" ? "" : where + ".";  // RESULT keys of runs told apart by --where
  int lrank = 0;
  for (int k = 0; k < local; ++k)
    if (GA_Cluster_procid(node, k) == me) lrank = k;
  if (me == 0) {
    std::printf("ga_mirror_bench merge: %d processes on %d node(s)\n", GA_Nnodes(), nodes);
    std::printf("%6s %8s %12s %14s %16s\n", "nodes", "bytes", "merge_ms", "moved_per_proc", "cpu_ms_per_node");
  }
  // A GA_Sync's CPU per node: a dissemination barrier, one notice per node
  // in each of its log2(nodes) rounds, so what one round of a latency-bound
  // merge costs here shows next to the merge.
  {
    constexpr int kSyncs = 1000;
    for (int i = 0; i < 100; ++i) GA_Sync();
    const double c = process_cpu();
    for (int i = 0; i < kSyncs; ++i) GA_Sync();
    double used[1] = {(process_cpu() - c) / kSyncs};
    GA_Dgop(used, 1, const_cast<char*>("+"));
    if (me == 0) {
      std::printf("GA_Sync: %.1f us CPU per node\n", used[0] / nodes * 1e6);
      std::printf("RESULT ga_mirror_bench %ssync_cpu_per_node.nodes%d %.4f ms\n", tag.c_str(), nodes, used[0] / nodes * 1e3);
      if (csv) std::fprintf(csv, "merge_sync_cpu,%s,%d,0,%g,0\n", where.c_str(), nodes, used[0] / nodes * 1e3);
    }
  }
  for (std::size_t b = 64u << 10; b <= max; b *= 4) {
    const int elems = static_cast<int>(b / 8);
    int dims[1] = {elems};
    char mn[] = "merged";
    const int m = NGA_Create_config(C_DBL, 1, dims, mn, nullptr, GA_Pgroup_get_mirror());
    // My share of my node's copy: every copy is written in full each trial.
    const int lo0 = static_cast<int>(static_cast<long>(elems) * lrank / local);
    const int hi0 = static_cast<int>(static_cast<long>(elems) * (lrank + 1) / local) - 1;
    std::vector<double> mine(static_cast<std::size_t>(std::max(0, hi0 - lo0 + 1)), 1.0);
    std::vector<double> t, cpu;
    long moved = 0, full = 0;
    for (int trial = -1; trial < 7; ++trial) {
      GA_Zero(m);
      if (hi0 >= lo0) {
        int lo[1] = {lo0}, hi[1] = {hi0}, ld[1] = {1};
        NGA_Put(m, lo, hi, mine.data(), ld);
      }
      GA_Sync();
      const double c = process_cpu();
      double s = now();
      GA_Merge_mirrored(m);
      double e[1] = {now() - s};
      double used[1] = {process_cpu() - c};
      GA_Dgop(e, 1, const_cast<char*>("max"));  // the merge ends when its last process does
      GA_Dgop(used, 1, const_cast<char*>("+"));
      if (trial >= 0) {
        t.push_back(e[0]);
        cpu.push_back(used[0] / nodes);
      }
      GA_Merge_mirrored_stats(m, &moved, &full);
    }
    // Check: every element is the number of nodes (each copy added 1).
    double probe = 0;
    int plo[1] = {elems - 1}, phi[1] = {elems - 1}, pld[1] = {1};
    NGA_Get(m, plo, phi, &probe, pld);
    if (probe != nodes) std::fprintf(stderr, "ga_mirror_bench: merge result %g, expected %d\n", probe, nodes);
    const double med = median(t);
    if (me == 0) {
      const double node_cpu = median(cpu);
      std::printf("%6d %8s %12.3f %14ld %16.3f\n", nodes, size_text(b).c_str(), med * 1e3, moved, node_cpu * 1e3);
      std::printf("RESULT ga_mirror_bench %smerge.nodes%d.%zu %.4f ms\n", tag.c_str(), nodes, b, med * 1e3);
      std::printf("RESULT ga_mirror_bench %smerge_cpu_per_node.nodes%d.%zu %.4f ms\n", tag.c_str(), nodes, b, node_cpu * 1e3);
      if (csv) {
        std::fprintf(csv, "merge,%s,%d,%zu,%g,%ld\n", where.c_str(), nodes, b, med * 1e3, moved);
        std::fprintf(csv, "merge_cpu,%s,%d,%zu,%g,%ld\n", where.c_str(), nodes, b, node_cpu * 1e3, moved);
      }
      std::fflush(stdout);
    }
    GA_Destroy(m);
  }
}

}  // namespace

int main(int argc, char** argv) {
  GA_Initialize_args(&argc, &argv);
  std::string mode = argc > 1 ? argv[1] : "get";
  std::string csv_path, where = "-";
  std::size_t max = 1u << 20;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
    else if (!std::strcmp(argv[i], "--max") && i + 1 < argc) max = std::strtoul(argv[++i], nullptr, 0);
    else if (!std::strcmp(argv[i], "--where") && i + 1 < argc) where = argv[++i];
  }
  FILE* csv = nullptr;
  if (GA_Nodeid() == 0 && !csv_path.empty()) csv = std::fopen(csv_path.c_str(), "a");
  if (mode == "get") get_bench(csv, max);
  else if (mode == "merge") merge_bench(csv, max, where);
  else if (GA_Nodeid() == 0) std::fprintf(stderr, "usage: ga_mirror_bench get|merge [--csv FILE] [--max BYTES] [--where TAG]\n");
  if (csv) std::fclose(csv);
  GA_Terminate();
  return 0;
}

// Started by tests/checks/ga_error_check.sh: makes one bad GA call (argv[1] names
// which) that must abort the job with a message naming the call.
#include <cstdio>
#include <cstring>

#include "ga/ga.h"
#include "message.h"

int main(int argc, char** argv) {
  GA_Initialize_args(&argc, &argv);
  const char* what = argc > 1 ? argv[1] : "";
  int dims[2] = {10, 10};
  char name[] = "victim";
  int g = NGA_Create(C_DBL, 2, dims, name, nullptr);
  double buf[100] = {0};
  int lo[2] = {0, 0}, hi[2] = {9, 9}, ld[1] = {10};
  if (!std::strcmp(what, "handle")) {
    NGA_Put(12345, lo, hi, buf, ld);
  } else if (!std::strcmp(what, "patch")) {
    int bad_hi[2] = {10, 3};
    NGA_Get(g, lo, bad_hi, buf, ld);
  } else if (!std::strcmp(what, "ld")) {
    int small[1] = {4};
    NGA_Put(g, lo, hi, buf, small);
  } else if (!std::strcmp(what, "type")) {
    NGA_Create(77, 2, dims, name, nullptr);
  } else if (!std::strcmp(what, "ndim")) {
    int d8[8] = {2, 2, 2, 2, 2, 2, 2, 2};
    NGA_Create(C_DBL, 8, d8, name, nullptr);
  } else if (!std::strcmp(what, "group")) {
    int all[64];
    for (int i = 0; i < GA_Nnodes(); ++i) all[i] = i;
    int grp = GA_Pgroup_create(all, GA_Nnodes());
    NGA_Create_config(C_INT, 2, dims, name, nullptr, grp);
    GA_Pgroup_destroy(grp);
  } else if (!std::strcmp(what, "access")) {
    // A block of a process on another node.
    const int other = GA_Cluster_procid((GA_Cluster_nodeid() + 1) % GA_Cluster_nnodes(), 0);
    int olo[2], ohi[2];
    NGA_Distribution(g, other, olo, ohi);
    double* p = nullptr;
    int pld[1];
    NGA_Access(g, olo, ohi, &p, pld);
  } else if (!std::strcmp(what, "dgemm")) {
    int gi = NGA_Create(C_INT, 2, dims, name, nullptr);
    GA_Dgemm('N', 'N', 10, 10, 10, 1.0, gi, g, 0.0, g);
  } else if (!std::strcmp(what, "trans")) {
    GA_Dgemm('X', 'N', 10, 10, 10, 1.0, g, g, 0.0, g);
  } else if (!std::strcmp(what, "op")) {
    double x = 1;
    GA_Dgop(&x, 1, name);
  }
  std::printf("rank %d survived its own error (%s)\n", armci_msg_me(), what);
  std::fflush(stdout);
  GA_Terminate();
  return 0;
}

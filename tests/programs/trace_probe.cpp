// ARMCI_TRACE probe (tests/checks/trace_check.sh): every process reads 200 times
// the 8 x 8 corner of a 256 x 256 GA array (the hot spot) and accumulates 20
// times into a patch of its own further down, so the trace holds exactly 220
// accesses per process and the heat map's hottest block is the corner (reads
// keep the caller until the data is there; accumulates to another node
// return once the source is reusable, so they barely wait).
#include <vector>

#include "ga/ga.h"

int main(int argc, char** argv) {
  GA_Initialize_args(&argc, &argv);
  int dims[2] = {256, 256};
  const int g = NGA_Create(C_DBL, 2, dims, const_cast<char*>("hot"), nullptr);
  GA_Zero(g);
  const int me = GA_Nodeid();
  std::vector<double> buf(64, 1.0);
  double one = 1;
  int corner_lo[2] = {0, 0}, corner_hi[2] = {7, 7}, ld[1] = {8};
  int mine_lo[2] = {128 + (me % 16) * 8, 128}, mine_hi[2] = {mine_lo[0] + 7, 135};
  for (int i = 0; i < 200; ++i) {
    NGA_Get(g, corner_lo, corner_hi, buf.data(), ld);
    if (i % 10 == 0) NGA_Acc(g, mine_lo, mine_hi, buf.data(), ld, &one);
  }
  GA_Sync();
  GA_Destroy(g);
  GA_Terminate();
  return 0;
}

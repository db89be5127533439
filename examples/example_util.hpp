// Shared by the GA examples: wall-clock time, and the bytes this process has
// moved through libfabric so far (armci-ofi's ARMCI_Ofi_stat counters).
#pragma once
#include "armci.h"
#include "ga/ga.h"
#include "message.h"

namespace ex {

inline long remote_bytes() { return ARMCI_Ofi_stat("remote_bytes"); }

// Sum (or max) over all processes.
inline long lsum(long x) {
  GA_Lgop(&x, 1, const_cast<char*>("+"));
  return x;
}
inline double dmax(double x) {
  GA_Dgop(&x, 1, const_cast<char*>("max"));
  return x;
}

// Network bytes moved by all processes while f() runs, and its time (the
// slowest process's).
template <typename F>
void measure(F&& f, double& seconds, long& bytes) {
  GA_Sync();
  const long b0 = remote_bytes();
  const double t0 = armci_timer();
  f();
  const double t = armci_timer() - t0;
  const long b = remote_bytes() - b0;
  seconds = dmax(t);
  bytes = lsum(b);
}

}  // namespace ex

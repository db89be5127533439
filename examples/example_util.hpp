// Shared by the GA examples: wall-clock time, and the bytes this process has
// moved through libfabric so far (armci-ofi's ARMCI_Ofi_stats counters).
#pragma once
#include <time.h>

#include <cstdlib>
#include <cstring>

#include "armci.h"
#include "ga/ga.h"

namespace ex {

inline double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

inline long remote_bytes() {
  char buf[2048];
  ARMCI_Ofi_stats(buf, sizeof buf);
  const char* p = std::strstr(buf, "remote_bytes=");
  return p ? std::atol(p + 13) : 0;
}

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
  const double t0 = now();
  f();
  const double t = now() - t0;
  const long b = remote_bytes() - b0;
  seconds = dmax(t);
  bytes = lsum(b);
}

}  // namespace ex

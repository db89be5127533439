// Timing and reporting helpers shared by the benchmarks.
#pragma once
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace bench {

inline double clock_seconds(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

inline double now() { return clock_seconds(CLOCK_MONOTONIC); }

// CPU seconds this process has used, all its threads (a node agent's
// thread too) and the kernel work done on their behalf.
inline double process_cpu() { return clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds per call of f(), the median over `trials` runs of `iters` calls
// after `warm` unmeasured calls.
template <typename F>
double per_call(F&& f, int iters, int trials = 5, int warm = -1) {
  if (warm < 0) warm = std::max(2, iters / 10);
  for (int i = 0; i < warm; ++i) f();
  std::vector<double> t;
  for (int k = 0; k < trials; ++k) {
    double s = now();
    for (int i = 0; i < iters; ++i) f();
    t.push_back((now() - s) / iters);
  }
  return median(t);
}

// Seconds per call of f() and of g(), measured in alternating trials (f
// first in even trials, g first in odd ones), so both see the same caches
// and the same disturbances of the machine.  Medians over the trials.
template <typename F, typename G>
std::pair<double, double> per_call_paired(F&& f, G&& g, int iters, int trials = 7) {
  const int warm = std::max(2, iters / 10);
  for (int i = 0; i < warm; ++i) {
    f();
    g();
  }
  std::vector<double> tf, tg;
  auto block = [&](auto&& h, std::vector<double>& out) {
    const double s = now();
    for (int i = 0; i < iters; ++i) h();
    out.push_back((now() - s) / iters);
  };
  for (int k = 0; k < trials; ++k) {
    if (k % 2 == 0) {
      block(f, tf);
      block(g, tg);
    } else {
      block(g, tg);
      block(f, tf);
    }
  }
  return {median(tf), median(tg)};
}

// A ceiling on iterations per trial (armci_bench --max-iters), so providers
// a thousand times slower than the default still finish a survey; 0: none.
inline int& iters_ceiling() {
  static int c = 0;
  return c;
}
inline int capped_iters(int n) { return iters_ceiling() > 0 ? std::clamp(n, 1, iters_ceiling()) : n; }

// Iterations that keep one trial near `budget_bytes` of traffic.
inline int iters_for(std::size_t bytes, std::size_t budget_bytes = 64u << 20, int lo = 4, int hi = 4000) {
  long n = static_cast<long>(budget_bytes / std::max<std::size_t>(bytes, 1));
  return capped_iters(static_cast<int>(std::clamp<long>(n, lo, hi)));
}

inline std::string size_text(std::size_t b) {
  char buf[32];
  if (b >= (1u << 20) && b % (1u << 20) == 0) std::snprintf(buf, sizeof buf, "%zuM", b >> 20);
  else if (b >= 1024 && b % 1024 == 0) std::snprintf(buf, sizeof buf, "%zuK", b >> 10);
  else std::snprintf(buf, sizeof buf, "%zu", b);
  return buf;
}

inline double mbps(std::size_t bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e6 : 0; }

}  // namespace bench

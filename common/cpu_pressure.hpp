// Whether the machine has more runnable threads than online CPUs (the
// kernel's instantaneous, host-wide count in /proc/loadavg).  The node agent
// asks before it polls after an event: a poll window is cheap latency on a
// spare core, but on a full machine it is time taken from a process with
// work, the case Open MPI's yield-when-idle covers.
#pragma once
#include <chrono>

namespace armci {

class CpuPressure {
 public:
  // path: where the load line is read (nullptr: never contested); cpus:
  // the CPUs to compare with (-1: the online ones).  Tests point both
  // elsewhere.
  explicit CpuPressure(const char* path = "/proc/loadavg", long cpus = -1);
  ~CpuPressure();
  CpuPressure(const CpuPressure&) = delete;
  CpuPressure& operator=(const CpuPressure&) = delete;

  // Reads the count again once the last read is a millisecond old: callers
  // refresh where a few microseconds do not matter (before sleeping, every
  // so often while polling) and ask contested() on the fast path.
  void refresh(std::chrono::steady_clock::time_point now);
  bool contested() const { return contested_; }

 private:
  int fd_ = -1;
  long cpus_;
  bool contested_ = false;
  std::chrono::steady_clock::time_point next_{};
};

// The runnable count of a /proc/loadavg line ("0.20 0.18 0.12 6/80 11206"
// gives 6), or -1 if the line is not of that form (a partial read).
long runnable_in_loadavg(const char* line);

}  // namespace armci

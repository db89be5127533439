// Whether the machine has more runnable threads than online CPUs right now
// (the kernel's instantaneous count in /proc/loadavg).  The node agent asks
// before it polls after an event: a poll window is cheap latency on a spare
// core, but on a full machine it is time taken from a process with work,
// the case Open MPI's yield-when-idle covers.
#pragma once
#include <chrono>

namespace armci {

class CpuPressure {
 public:
  CpuPressure();  // without /proc/loadavg it never reports pressure
  ~CpuPressure();
  CpuPressure(const CpuPressure&) = delete;
  CpuPressure& operator=(const CpuPressure&) = delete;

  // Read at most once a millisecond; between reads the last answer holds.
  bool contested(std::chrono::steady_clock::time_point now);
  long cpus() const { return cpus_; }

 private:
  int fd_ = -1;
  long cpus_;
  bool contested_ = false;
  std::chrono::steady_clock::time_point next_{};
};

// The runnable count of a /proc/loadavg line ("0.20 0.18 0.12 6/80 11206"
// gives 6), or -1 if the line is not of that form.
long runnable_in_loadavg(const char* line);

}  // namespace armci

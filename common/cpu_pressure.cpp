#include "common/cpu_pressure.hpp"

#include <fcntl.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <cstdlib>

namespace armci {

CpuPressure::CpuPressure(const char* path, long cpus)
    : fd_(path ? open(path, O_RDONLY | O_CLOEXEC) : -1), cpus_(cpus > 0 ? cpus : get_nprocs()) {
  refresh(std::chrono::steady_clock::now());
}

CpuPressure::~CpuPressure() {
  if (fd_ >= 0) close(fd_);
}

long runnable_in_loadavg(const char* line) {
  const char* p = line;
  for (int field = 0; field < 3; ++field) {  // past the three load averages
    while (*p && *p != ' ') ++p;
    if (!*p) return -1;
    ++p;
  }
  char* end = nullptr;
  const long n = std::strtol(p, &end, 10);
  return end != p && *end == '/' ? n : -1;
}

void CpuPressure::refresh(std::chrono::steady_clock::time_point now) {
  if (fd_ < 0 || now < next_) return;
  next_ = now + std::chrono::milliseconds(1);
  char line[128];
  const ssize_t n = pread(fd_, line, sizeof line - 1, 0);  // the kernel writes the line anew per read
  if (n <= 0) return;
  line[n] = '\0';
  // The asking thread is one of the runnable ones: with more than cpus_,
  // some thread waits for a core while it polls.
  const long runnable = runnable_in_loadavg(line);
  if (runnable >= 0) contested_ = runnable > cpus_;
}

}  // namespace armci

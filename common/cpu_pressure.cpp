#include "common/cpu_pressure.hpp"

#include <fcntl.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <cstdlib>

namespace armci {

CpuPressure::CpuPressure() : fd_(open("/proc/loadavg", O_RDONLY | O_CLOEXEC)), cpus_(get_nprocs()) {}

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

bool CpuPressure::contested(std::chrono::steady_clock::time_point now) {
  if (fd_ < 0 || now < next_) return contested_;
  next_ = now + std::chrono::milliseconds(1);
  char line[128];
  const ssize_t n = pread(fd_, line, sizeof line - 1, 0);
  if (n <= 0) return contested_;
  line[n] = '\0';
  const long runnable = runnable_in_loadavg(line);  // counts the reader too
  if (runnable >= 0) contested_ = runnable > cpus_;
  return contested_;
}

}  // namespace armci

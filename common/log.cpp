#include "common/log.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace armci {

namespace {
Logger* g_logger = nullptr;  // the runtime's (one per process), set by it
}  // namespace

Logger* current_logger() { return g_logger; }
void install_logger(Logger* l) { g_logger = l; }


std::string who() {
  Logger* l = current_logger();
  char buf[160];
  if (!l || l->rank < 0) {
    // Not started (or already finished): what the launcher told the process
    // is all there is, but it is enough to find it in the job.
    const char* rank = nullptr;
    for (const char* v : {"PMIX_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMI_RANK"})
      if ((rank = std::getenv(v))) break;
    const char* size = nullptr;
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "PMI_SIZE"})
      if ((size = std::getenv(v))) break;
    char host[64] = "?";
    gethostname(host, sizeof host - 1);
    std::snprintf(buf, sizeof buf, "rank %s/%s (outside ARMCI_Init..ARMCI_Finalize, host %s, pid %d)",
                  rank ? rank : "?", size ? size : "?", host, static_cast<int>(getpid()));
  } else {
    std::snprintf(buf, sizeof buf, "rank %d/%d (node %d, host %s, pid %d)", l->rank,
                  l->nprocs, l->node, l->host.c_str(), static_cast<int>(getpid()));
  }
  return buf;
}

namespace {

std::string vformat(const char* fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string s(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(s.data(), s.size() + 1, fmt, ap);
  return s;
}

// One write per line so lines of different ranks do not interleave.
void emit(const std::string& line) {
  std::string l = line;
  if (l.empty() || l.back() != '\n') l.push_back('\n');
  ssize_t unused = ::write(STDERR_FILENO, l.data(), l.size());
  (void)unused;
}

[[noreturn]] void die(int code, const std::string& msg) {
  emit("armci-ofi ERROR [" + who() + "] " + msg);
  Logger* l = current_logger();
  if (l && l->abort_job) l->abort_job(code, msg);
  std::_Exit(code ? code : 1);
}

}  // namespace

void fatal(const char* call, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string msg = std::string(call) + ": " + vformat(fmt, ap);
  va_end(ap);
  die(1, msg);
}

void fatal_code(int code, const char* call, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string msg = std::string(call) + ": " + vformat(fmt, ap);
  va_end(ap);
  die(code, msg);
}

void warn(const char* call, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string msg = std::string(call) + ": " + vformat(fmt, ap);
  va_end(ap);
  emit("armci-ofi WARNING [" + who() + "] " + msg);
}

bool verbose_on(int level) {
  Logger* l = current_logger();
  return l && l->verbose >= level;
}

void verbose(int level, const char* fmt, ...) {
  if (!verbose_on(level)) return;
  va_list ap;
  va_start(ap, fmt);
  std::string msg = vformat(fmt, ap);
  va_end(ap);
  Logger* l = current_logger();
  char prefix[64];
  std::snprintf(prefix, sizeof prefix, "armci-ofi [%d] ", l ? l->rank : -1);
  emit(prefix + msg);
}

}  // namespace armci

// Diagnostics: fatal errors name the call, the process and the bad value, then
// abort the whole job through the bootstrap so no peer waits forever.
#pragma once
#include <cstdarg>
#include <functional>
#include <string>

namespace armci {

// Who is speaking; owned by the runtime object and found through
// current_logger(), which is null before ARMCI_Init and after Finalize.
struct Logger {
  int rank = -1;
  int nprocs = 0;
  int node = -1;
  std::string host;
  int verbose = 0;
  std::function<void(int code, const std::string& why)> abort_job;  // never returns
};
// The runtime installs its logger at start and removes it at the end; before
// and after, messages go out with a bare prefix.
Logger* current_logger();
void install_logger(Logger* l);

[[noreturn]] void fatal(const char* call, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
[[noreturn]] void fatal_code(int code, const char* call, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
void warn(const char* call, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Printed when ARMCI_VERBOSE >= level.
void verbose(int level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
bool verbose_on(int level);
std::string who();  // "rank 3/6 (node 1, host vm, pid 1234)"

}  // namespace armci

// Internal invariant: a failure is a bug in armci-ofi, not in the caller.
#define ARMCI_ASSERT(cond)                                                         \
  do {                                                                             \
    if (__builtin_expect(!(cond), 0))                                              \
      ::armci::fatal("internal", "assertion `%s' failed at %s:%d", #cond, __FILE__, \
                     __LINE__);                                                    \
  } while (0)

#include "armci/errors.hpp"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <string>

#include "armci/runtime.hpp"

namespace armci {

void bad_arg(const char* call, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[1024];
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  Runtime* r = Runtime::instance();
  if (r && r->knobs.ERRORS == "return") {
    std::string line = "armci-ofi ERROR [" + who() + "] " + call + ": " + msg + "\n";
    ssize_t unused = write(STDERR_FILENO, line.data(), line.size());
    (void)unused;
    throw ArgError{kErrBadArg};
  }
  fatal(call, "%s", msg);
}

void uncaught(const char* what) noexcept {
  fatal("ARMCI", "internal error inside a public call: %s (out of memory?)", what);
}

}  // namespace armci

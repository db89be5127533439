#include "ga/errors.hpp"

#include <cstdarg>
#include <cstdio>

#include "armci.h"

namespace ga {

void fail(const char* call, const char* fmt, ...) {
  char msg[1024];
  int n = std::snprintf(msg, sizeof msg, "%s: ", call);
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg + n, sizeof msg - static_cast<std::size_t>(n), fmt, ap);
  va_end(ap);
  ARMCI_Error(msg, 1);
  __builtin_unreachable();  // ARMCI_Error aborts the job
}

std::string show_index(int n, const int* v) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) {
    if (i) s += ",";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

}  // namespace ga

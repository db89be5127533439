// Bad arguments to public calls.  ARMCI_ON_ERROR... see knobs: by default the
// message is printed and the job aborted (ARMCI's classic behaviour); with
// ARMCI_ERRORS=return the call prints the message and returns an error code
// instead (for tools and tests).
#pragma once
#include <exception>

#include "common/log.hpp"

namespace armci {

inline constexpr int ARMCI_LONG_ID = -101;  // message.h's ARMCI_LONG

struct ArgError {
  int code;
};
inline constexpr int kErrBadArg = -22;
inline constexpr int kErrNoMem = -12;

[[noreturn]] void bad_arg(const char* call, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
// Anything else thrown inside a public call (std::bad_alloc, a library
// error): reported and the job ended, never unwound into C or Fortran.
[[noreturn]] void uncaught(const char* what) noexcept;

}  // namespace armci

// Boundary of every public call: no exception crosses into C.
#define ARMCI_API_TRY try {
#define ARMCI_API_CATCH(ret)             \
  }                                      \
  catch (const ::armci::ArgError& e) {   \
    (void)e;                             \
    return ret;                          \
  }                                      \
  catch (const std::exception& e) {      \
    ::armci::uncaught(e.what());         \
  }
#define ARMCI_API_CATCH_VOID             \
  }                                      \
  catch (const ::armci::ArgError&) {     \
    return;                              \
  }                                      \
  catch (const std::exception& e) {      \
    ::armci::uncaught(e.what());         \
  }

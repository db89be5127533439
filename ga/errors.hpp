// Errors of the GA layer: a bad argument is reported as "call: what is
// wrong" and aborts the job through ARMCI_Error (GA_Error's behaviour), so
// nothing is ever thrown by our own code.  The API wrappers still catch
// anything the standard library throws (bad_alloc) so that no exception
// crosses extern "C".
#pragma once
#include <exception>
#include <string>

namespace ga {

[[noreturn]] void fail(const char* call, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Formats indices as "[1,2,3]".
std::string show_index(int n, const int* v);

template <typename F>
auto guard(const char* call, F&& f) noexcept -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    fail(call, "internal error: %s", e.what());
  } catch (...) {
    fail(call, "internal error (unknown exception)");
  }
}

}  // namespace ga

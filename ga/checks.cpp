#include "ga/checks.hpp"

#include "ga/errors.hpp"
#include "ga/types.hpp"

namespace ga {

bool check_patch(const char* call, const Array& a, const int* lo, const int* hi, Box& out) {
  if (!lo || !hi) fail(call, "%s is NULL", !lo ? "lo" : "hi");
  out = Box::of(a.ndim, lo, hi);
  bool empty = false;
  for (int d = 0; d < a.ndim; ++d)
    if (hi[d] == lo[d] - 1) empty = true;
  for (int d = 0; d < a.ndim; ++d) {
    if (hi[d] == lo[d] - 1 && lo[d] >= 0 && lo[d] <= a.dims[d]) continue;
    if (lo[d] < 0 || hi[d] >= a.dims[d] || lo[d] > hi[d])
      fail(call, "patch lo=%s hi=%s is not inside array %d ('%s') of dims %s (dimension %d)",
           show_index(a.ndim, lo).c_str(), show_index(a.ndim, hi).c_str(), a.handle, a.name.c_str(),
           show_index(a.ndim, a.dims).c_str(), d);
  }
  return !empty;
}

void check_ld(const char* call, const Array& a, const int* ld, const int* count) {
  if (a.ndim == 1) return;
  if (!ld) fail(call, "ld is NULL for a %d-dimensional array", a.ndim);
  for (int d = 0; d + 1 < a.ndim; ++d)
    if (ld[d] < count[d + 1])
      fail(call, "ld[%d] = %d is smaller than the patch extent %d in dimension %d", d, ld[d], count[d + 1],
           d + 1);
}

void check_ptr(const char* call, const char* what, const void* p) {
  if (!p) fail(call, "%s is NULL", what);
}

void check_subscript(const char* call, const Array& a, const int* sub, const char* what) {
  if (!sub) fail(call, "%s is NULL", what);
  for (int d = 0; d < a.ndim; ++d)
    if (sub[d] < 0 || sub[d] >= a.dims[d])
      fail(call, "%s %s is outside array %d ('%s') of dims %s", what, show_index(a.ndim, sub).c_str(),
           a.handle, a.name.c_str(), show_index(a.ndim, a.dims).c_str());
}

void check_same_type(const char* call, const Array& a, const Array& b) {
  if (a.type != b.type)
    fail(call, "arrays %d ('%s', %s) and %d ('%s', %s) have different types", a.handle, a.name.c_str(),
         type_info(a.type)->name, b.handle, b.name.c_str(), type_info(b.type)->name);
}

void check_type(const char* call, const Array& a, int type) {
  if (a.type != type)
    fail(call, "array %d ('%s') is %s, this call needs %s", a.handle, a.name.c_str(), type_info(a.type)->name,
         type_info(type)->name);
}

bool check_trans(const char* call, char t, const char* what) {
  if (t == 'n' || t == 'N') return false;
  if (t == 't' || t == 'T') return true;
  fail(call, "%s = '%c' is not 'N' or 'T'", what, t);
}

}  // namespace ga

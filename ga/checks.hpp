// Argument checks shared by the public calls; each failure names the call,
// the array and the bad value, then aborts (ga::fail).
#pragma once
#include "ga/array.hpp"

namespace ga {

// [lo, hi] must lie inside the array.  A dimension with hi == lo-1 makes the
// patch empty (the call does nothing): returns false then.
bool check_patch(const char* call, const Array& a, const int* lo, const int* hi, Box& out);
// ld[] (ndim-1 entries) must hold the patch: ld[d] >= count[d+1].
void check_ld(const char* call, const Array& a, const int* ld, const int* count);
void check_ptr(const char* call, const char* what, const void* p);
void check_subscript(const char* call, const Array& a, const int* sub, const char* what);
// Both arrays have the same element type.
void check_same_type(const char* call, const Array& a, const Array& b);
void check_type(const char* call, const Array& a, int type);
// Transpose flags: 'n', 'N', 't', 'T' (returns true for a transpose).
bool check_trans(const char* call, char t, const char* what);

}  // namespace ga

#include "armci/strided_check.hpp"

#include <cstdio>
#include <utility>

#include "armci/armci.h"

namespace armci {

namespace {

// Extent of one side (first to last byte + 1) in 63 bits, in any level
// order; false if it wraps.
bool extent_of(int levels, const int* count, const int* stride, long* extent) {
  long e = count[0];
  for (int i = 1; i <= levels; ++i) {
    if (count[i] <= 1) continue;
    long span = 0;
    if (__builtin_mul_overflow(static_cast<long>(stride[i - 1]), static_cast<long>(count[i] - 1), &span) ||
        __builtin_add_overflow(e, span, &e))
      return false;
  }
  *extent = e;
  return true;
}

// The destination's pieces must not overlap.  Levels in stride order (a
// transposed or permuted layout is fine): each must step over the whole
// block of the levels below it.  Sufficient, and what any array patch meets.
bool dst_overlaps(int levels, const int* count, const int* stride, char* why, std::size_t n) {
  int order[ARMCI_MAX_STRIDE_LEVEL];
  int k = 0;
  for (int i = 1; i <= levels; ++i)
    if (count[i] > 1) order[k++] = i;
  for (int j = 1; j < k; ++j)  // at most 8: insertion sort by stride
    for (int m = j; m > 0 && stride[order[m] - 1] < stride[order[m - 1] - 1]; --m) std::swap(order[m], order[m - 1]);
  long block = count[0];  // cannot wrap: the extent check came first
  for (int j = 0; j < k; ++j) {
    const int i = order[j];
    const long st = stride[i - 1];
    if (st < block) {
      std::snprintf(why, n,
                    "dst_stride_arr[%d] = %ld is smaller than the %ld-byte block it repeats %d times "
                    "(destination pieces would overlap)",
                    i - 1, st, block, count[i]);
      return true;
    }
    block += st * (count[i] - 1);
  }
  return false;
}

}  // namespace

bool strided_problem(int levels, const int* count, const int* src_stride, const int* dst_stride,
                     bool dst_exclusive, char* why, std::size_t n) {
  if (levels < 0 || levels > ARMCI_MAX_STRIDE_LEVEL) {
    std::snprintf(why, n, "stride_levels %d is outside 0..%d", levels, ARMCI_MAX_STRIDE_LEVEL);
    return true;
  }
  if (!count) {
    std::snprintf(why, n, "count array is NULL");
    return true;
  }
  for (int i = 0; i <= levels; ++i)
    if (count[i] < 0) {
      std::snprintf(why, n, "count[%d] = %d is negative", i, count[i]);
      return true;
    }
  if (levels > 0 && (!src_stride || !dst_stride)) {
    std::snprintf(why, n, "%s stride array is NULL with %d stride levels", !src_stride ? "source" : "destination",
                  levels);
    return true;
  }
  // A level that does not repeat never uses its stride (GA computes strides
  // in int, so an unused one of a huge block may have wrapped negative).
  for (int i = 0; i < levels; ++i) {
    if (count[i + 1] <= 1) continue;
    if (src_stride[i] < 0 || dst_stride[i] < 0) {
      const bool src = src_stride[i] < 0;
      std::snprintf(why, n, "%s_stride_arr[%d] = %d is negative", src ? "src" : "dst", i,
                    src ? src_stride[i] : dst_stride[i]);
      return true;
    }
  }
  for (int i = 0; i <= levels; ++i)
    if (count[i] == 0) return false;  // nothing moves: the strides are never used
  long total = count[0];
  for (int i = 1; i <= levels; ++i)
    if (__builtin_mul_overflow(total, static_cast<long>(count[i]), &total)) {
      std::snprintf(why, n, "the product of count[0..%d] overflows 64 bits", levels);
      return true;
    }
  long extent = 0;
  for (const auto& [side, stride] : {std::pair{"src", src_stride}, std::pair{"dst", dst_stride}})
    if (!extent_of(levels, count, stride, &extent)) {
      std::snprintf(why, n, "the %s extent (sum of (count - 1) x stride over the levels) overflows 64 bits",
                    side);
      return true;
    }
  return dst_exclusive && dst_overlaps(levels, count, dst_stride, why, n);
}

}  // namespace armci

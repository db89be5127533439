#include "armci/strided_check.hpp"

#include <cstdio>

#include "armci/armci.h"

namespace armci {

namespace {

// One side: each repeating level steps at least over the block below it,
// and the extent fits in 63 bits.
bool side_problem(const char* side, int levels, const int* count, const int* stride, char* why, std::size_t n) {
  long block = count[0];  // extent of one block of the level being checked
  for (int i = 1; i <= levels; ++i) {
    const long st = stride[i - 1];
    if (count[i] <= 1) continue;
    if (st < block) {
      std::snprintf(why, n,
                    "%s_stride_arr[%d] = %ld is smaller than the %ld-byte block it repeats %d times "
                    "(the pieces would overlap)",
                    side, i - 1, st, block, count[i]);
      return true;
    }
    long span = 0;
    if (__builtin_mul_overflow(st, static_cast<long>(count[i] - 1), &span) ||
        __builtin_add_overflow(span, block, &block)) {
      std::snprintf(why, n, "%s extent overflows 64 bits at level %d (stride %ld, count %d)", side, i, st,
                    count[i]);
      return true;
    }
  }
  return false;
}

}  // namespace

bool strided_problem(int levels, const int* count, const int* src_stride, const int* dst_stride, char* why,
                     std::size_t n) {
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
  for (int i = 0; i < levels; ++i) {
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
  return side_problem("src", levels, count, src_stride, why, n) ||
         side_problem("dst", levels, count, dst_stride, why, n);
}

}  // namespace armci

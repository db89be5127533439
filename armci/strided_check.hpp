// Whether a strided descriptor may be walked: stride levels 0..8, counts and
// strides non-negative, arrays present, the byte total and both extents
// computed without wrapping, and every level that repeats stepping over the
// whole block it repeats (else its pieces overlap).  Pure, so a fuzzer
// drives it (tests/fuzz/): a descriptor it accepts walks only inside
// [0, extent) on either side.
#pragma once
#include <cstddef>

namespace armci {

// true and `why` filled if the descriptor is refused.
bool strided_problem(int levels, const int* count, const int* src_stride, const int* dst_stride, char* why,
                     std::size_t why_len);

}  // namespace armci

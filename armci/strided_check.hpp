// Whether a strided descriptor may be walked: stride levels 0..8, counts and
// the strides of repeating levels non-negative, arrays present, the byte
// total and both extents computed without wrapping, and (dst_exclusive: put,
// get) destination pieces that cannot overlap.  Sources may overlap (a
// stride of 0 repeats one element); accumulates into overlapping pieces
// are defined (each adds).  Pure, so a fuzzer drives it (tests/fuzz/): a
// descriptor it accepts walks only inside [0, extent) on either side.
#pragma once
#include <cstddef>

namespace armci {

// true and `why` filled if the descriptor is refused.
bool strided_problem(int levels, const int* count, const int* src_stride, const int* dst_stride,
                     bool dst_exclusive, char* why, std::size_t why_len);

}  // namespace armci

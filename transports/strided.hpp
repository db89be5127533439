// Walking ARMCI strided descriptors: count[0] contiguous bytes, count[i]
// blocks at level i, stride[i-1] the byte stride of level i.  Levels whose
// blocks are contiguous on both sides are merged first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "armci/armci.h"

namespace armci::transport {

struct StridedShape {
  int levels = 0;
  long count[ARMCI_MAX_STRIDE_LEVEL + 1] = {};
  long src_stride[ARMCI_MAX_STRIDE_LEVEL] = {};
  long dst_stride[ARMCI_MAX_STRIDE_LEVEL] = {};

  StridedShape() = default;
  StridedShape(int lv, const int* cnt, const int* ss, const int* ds) {
    levels = lv;
    for (int i = 0; i <= lv; ++i) count[i] = cnt[i];
    for (int i = 0; i < lv; ++i) {
      src_stride[i] = ss ? ss[i] : 0;
      dst_stride[i] = ds ? ds[i] : 0;
    }
    merge();
  }
  std::size_t chunks() const {
    std::size_t n = 1;
    for (int i = 1; i <= levels; ++i) n *= static_cast<std::size_t>(count[i]);
    return n;
  }
  std::size_t bytes() const { return chunks() * static_cast<std::size_t>(count[0]); }
  bool empty() const {
    for (int i = 0; i <= levels; ++i)
      if (count[i] <= 0) return true;
    return false;
  }
  // Extent of the region on the destination / source side (first to last byte + 1).
  std::size_t dst_extent() const { return extent(dst_stride); }
  std::size_t src_extent() const { return extent(src_stride); }

 private:
  std::size_t extent(const long* stride) const {
    if (empty()) return 0;
    long e = count[0];
    for (int i = 1; i <= levels; ++i) e += (count[i] - 1) * stride[i - 1];
    return static_cast<std::size_t>(e);
  }
  void merge() {
    // Level 1 contiguous on both sides: fold it into count[0].
    while (levels > 0 && src_stride[0] == count[0] && dst_stride[0] == count[0]) {
      count[0] *= count[1];
      for (int i = 1; i < levels; ++i) count[i] = count[i + 1];
      for (int i = 0; i + 1 < levels; ++i) {
        src_stride[i] = src_stride[i + 1];
        dst_stride[i] = dst_stride[i + 1];
      }
      --levels;
    }
  }
};

// f(src_offset, dst_offset, bytes) for every contiguous piece, in order.
template <typename F>
void for_each_piece(const StridedShape& s, F&& f) {
  if (s.empty()) return;
  long idx[ARMCI_MAX_STRIDE_LEVEL + 1] = {};
  const std::size_t n = s.chunks();
  long so = 0, d = 0;
  for (std::size_t k = 0; k < n; ++k) {
    f(so, d, static_cast<std::size_t>(s.count[0]));
    // Odometer increment, keeping the offsets incrementally.
    for (int l = 1; l <= s.levels; ++l) {
      if (++idx[l] < s.count[l]) {
        so += s.src_stride[l - 1];
        d += s.dst_stride[l - 1];
        break;
      }
      so -= (s.count[l] - 1) * s.src_stride[l - 1];
      d -= (s.count[l] - 1) * s.dst_stride[l - 1];
      idx[l] = 0;
    }
  }
}

// f(offset) for pieces [first, first + n) of one side of a walk (blocks
// count[1..levels] times, stride[l-1] bytes apart at level l), in the order
// for_each_piece visits them.  A transfer cut into messages at piece
// boundaries is walked this way by each end on its own side, from any piece.
template <typename F>
void walk_side(int levels, const long* count, const long* stride, uint64_t first, uint64_t n, F&& f) {
  long idx[ARMCI_MAX_STRIDE_LEVEL + 1] = {};
  long off = 0;
  for (int l = 1; l <= levels; ++l) {
    const auto c = static_cast<uint64_t>(count[l]);
    idx[l] = static_cast<long>(first % c);
    first /= c;
    off += idx[l] * stride[l - 1];
  }
  for (uint64_t k = 0; k < n; ++k) {
    f(off);
    for (int l = 1; l <= levels; ++l) {
      if (++idx[l] < count[l]) {
        off += stride[l - 1];
        break;
      }
      off -= (count[l] - 1) * stride[l - 1];
      idx[l] = 0;
    }
  }
}

// Rows of `row` bytes, pieces [first, first + n) of one side at `side`,
// copied between it and a packed buffer: the pack and unpack of every
// staged strided transfer.  Returns the end of the packed bytes.
template <bool IntoSide>
char* copy_rows(int levels, const long* count, const long* stride, uint64_t first, uint64_t n, char* side,
                char* packed, std::size_t row) {
  walk_side(levels, count, stride, first, n, [&](long off) {
    if constexpr (IntoSide) std::memcpy(side + off, packed, row);
    else std::memcpy(packed, side + off, row);
    packed += row;
  });
  return packed;
}

// Each direction writes only the buffer its caller passed as writable: the
// casts drop a const that copy_rows honours.
inline char* gather_side(int levels, const long* count, const long* stride, uint64_t first, uint64_t n,
                         const char* base, char* out, std::size_t row) {
  return copy_rows<false>(levels, count, stride, first, n, const_cast<char*>(base), out, row);
}

inline const char* scatter_side(int levels, const long* count, const long* stride, uint64_t first, uint64_t n,
                                char* base, const char* in, std::size_t row) {
  return copy_rows<true>(levels, count, stride, first, n, base, const_cast<char*>(in), row);
}

}  // namespace armci::transport

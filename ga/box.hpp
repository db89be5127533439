// Boxes of array indices (inclusive bounds) and the row-major arithmetic on
// them that every module shares.
#pragma once
#include <algorithm>
#include <cstdint>

#include "ga/ga.h"

namespace ga {

constexpr int kMaxDim = GA_MAX_DIM;

struct Box {
  int ndim = 0;
  int lo[kMaxDim] = {};
  int hi[kMaxDim] = {};

  int extent(int d) const { return hi[d] - lo[d] + 1; }
  bool empty() const {
    for (int d = 0; d < ndim; ++d)
      if (hi[d] < lo[d]) return true;
    return ndim == 0;
  }
  std::int64_t elems() const {
    if (empty()) return 0;
    std::int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= extent(d);
    return n;
  }
  bool contains(const int* sub) const {
    for (int d = 0; d < ndim; ++d)
      if (sub[d] < lo[d] || sub[d] > hi[d]) return false;
    return true;
  }
  bool contains(const Box& b) const {
    for (int d = 0; d < ndim; ++d)
      if (b.lo[d] < lo[d] || b.hi[d] > hi[d]) return false;
    return true;
  }
  static Box of(int ndim, const int* lo, const int* hi) {
    Box b;
    b.ndim = ndim;
    std::copy(lo, lo + ndim, b.lo);
    std::copy(hi, hi + ndim, b.hi);
    return b;
  }
  static Box whole(int ndim, const int* dims) {
    Box b;
    b.ndim = ndim;
    for (int d = 0; d < ndim; ++d) b.hi[d] = dims[d] - 1;
    return b;
  }
};

// The overlap of a and b (possibly empty).
inline Box intersect(const Box& a, const Box& b) {
  Box r;
  r.ndim = a.ndim;
  for (int d = 0; d < a.ndim; ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::min(a.hi[d], b.hi[d]);
  }
  return r;
}

// Element strides of a dense row-major array with the given extents.
inline void dense_strides(int ndim, const int* ext, std::int64_t* stride) {
  std::int64_t s = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    stride[d] = s;
    s *= ext[d];
  }
}

// Offset (elements) of `sub` inside box `b` stored densely row-major.
inline std::int64_t offset_in(const Box& b, const int* sub) {
  std::int64_t off = 0;
  for (int d = 0; d < b.ndim; ++d) off = off * b.extent(d) + (sub[d] - b.lo[d]);
  return off;
}

// Calls f(row_start) for every row (fixed last index range) of box b, with
// row_start the index of the row's first element; rows in row-major order.
template <typename F>
void for_each_row(const Box& b, F&& f) {
  if (b.empty()) return;
  int idx[kMaxDim];
  std::copy(b.lo, b.lo + b.ndim, idx);
  const int last = b.ndim - 1;
  for (;;) {
    f(static_cast<const int*>(idx));
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++idx[d] <= b.hi[d]) break;
      idx[d] = b.lo[d];
    }
    if (d < 0) return;
  }
}

// Splits the linear range [first, last) of box p's row-major order into at
// most 2*ndim-1 boxes, calling f(box) in order.
template <typename F>
void linear_range_boxes(const Box& p, std::int64_t first, std::int64_t last, F&& f) {
  const int n = p.ndim;
  int ext[kMaxDim];
  for (int d = 0; d < n; ++d) ext[d] = p.extent(d);
  std::int64_t span[kMaxDim + 1];  // span[d]: elements in one step of dimension d-1
  span[n] = 1;
  for (int d = n - 1; d >= 0; --d) span[d] = span[d + 1] * ext[d];
  while (first < last) {
    // Largest d such that `first` is aligned to span[d] and a whole block of
    // span[d] elements fits; then take as many such blocks as fit along d-1.
    int d = n;
    while (d > 1 && first % span[d - 1] == 0 && first + span[d - 1] <= last) --d;
    // Boxes of span[d] elements: walk along dimension d-1 (or a single
    // element run along the last dimension when d == n).
    const int dim = d - 1;
    std::int64_t unit = span[d];
    std::int64_t room = dim >= 0 ? (ext[dim] - (first / unit) % ext[dim]) : 1;
    std::int64_t count = std::min<std::int64_t>(room, (last - first) / unit);
    Box b;
    b.ndim = n;
    std::int64_t rem = first;
    for (int k = 0; k < n; ++k) {
      std::int64_t c = rem / span[k + 1];
      rem %= span[k + 1];
      b.lo[k] = p.lo[k] + static_cast<int>(c);
      b.hi[k] = k < dim ? b.lo[k] : (k == dim ? b.lo[k] + static_cast<int>(count) - 1 : p.hi[k]);
    }
    f(b);
    first += count * unit;
  }
}

}  // namespace ga

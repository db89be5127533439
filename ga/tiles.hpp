// The tile grid of a mirrored array: fixed boxes of the GLOBAL index space,
// the same on every node whatever its number of processes and block layout.
// Merges slice their work by tiles and the dirty bitmaps count in tiles, so
// two nodes with different layouts still agree on what to exchange.
#pragma once
#include <cstdint>

#include "ga/box.hpp"

namespace ga {

class TileGrid {
 public:
  // At most about max_tiles tiles, none smaller than min_elems elements
  // unless the array is; tiles as cubic as the dimensions allow.
  void init(int ndim, const int* dims, int max_tiles, std::int64_t min_elems);
  int count() const { return count_; }
  Box tile(int t) const;
  std::int64_t tile_elems(int t) const { return tile(t).elems(); }
  // f(t) for every tile meeting box b.
  template <typename F>
  void for_each_tile_in(const Box& b, F&& f) const;

 private:
  int ndim_ = 0;
  int dims_[kMaxDim] = {};
  int ext_[kMaxDim] = {};  // tile extent per dimension
  int n_[kMaxDim] = {};    // tiles per dimension
  int count_ = 0;
};

template <typename F>
void TileGrid::for_each_tile_in(const Box& b, F&& f) const {
  if (b.empty()) return;
  int lo[kMaxDim], hi[kMaxDim], c[kMaxDim];
  for (int d = 0; d < ndim_; ++d) {
    lo[d] = b.lo[d] / ext_[d];
    hi[d] = b.hi[d] / ext_[d];
    c[d] = lo[d];
  }
  for (;;) {
    int t = 0;
    for (int d = 0; d < ndim_; ++d) t = t * n_[d] + c[d];
    f(t);
    int d = ndim_ - 1;
    for (; d >= 0; --d) {
      if (++c[d] <= hi[d]) break;
      c[d] = lo[d];
    }
    if (d < 0) return;
  }
}

inline void TileGrid::init(int ndim, const int* dims, int max_tiles, std::int64_t min_elems) {
  ndim_ = ndim;
  std::int64_t total = 1;
  for (int d = 0; d < ndim; ++d) {
    dims_[d] = dims[d];
    ext_[d] = dims[d];
    n_[d] = 1;
    total *= dims[d];
  }
  count_ = 1;
  // Halve the longest tile side while the tile count and size allow.
  for (;;) {
    int best = -1;
    for (int d = 0; d < ndim; ++d)
      if (ext_[d] > 1 && (best < 0 || ext_[d] > ext_[best])) best = d;
    if (best < 0) break;
    const int next_ext = (ext_[best] + 1) / 2;
    const int next_n = (dims_[best] + next_ext - 1) / next_ext;
    const long next_count = static_cast<long>(count_) / n_[best] * next_n;
    std::int64_t next_elems = 1;
    for (int d = 0; d < ndim; ++d) next_elems *= d == best ? next_ext : ext_[d];
    if (next_count > max_tiles || next_elems < min_elems) break;
    ext_[best] = next_ext;
    n_[best] = next_n;
    count_ = static_cast<int>(next_count);
  }
  (void)total;
}

inline Box TileGrid::tile(int t) const {
  Box b;
  b.ndim = ndim_;
  for (int d = ndim_ - 1; d >= 0; --d) {
    const int c = t % n_[d];
    t /= n_[d];
    b.lo[d] = c * ext_[d];
    b.hi[d] = std::min(dims_[d], (c + 1) * ext_[d]) - 1;
  }
  return b;
}

}  // namespace ga

// How an array (or one node's copy of a mirrored array) is cut into blocks:
// a grid of nblock[d] blocks per dimension; block b's first index in
// dimension d is start[d][b].  Owner ranks number the blocks row-major (last
// dimension fastest), as GA's C interface does; ranks >= nowners() own
// nothing.
#pragma once
#include <cstdint>
#include <vector>

#include "ga/box.hpp"

namespace ga {

class Distribution {
 public:
  // GA-like block decomposition over nprocs processes: the process grid
  // with the most blocks, then the most balanced blocks, then the smallest
  // block surface; chunk[d] > 0 is a minimum block extent in dimension d.
  static Distribution regular(int ndim, const int* dims, const int* chunk, int nprocs);
  // block[d] blocks per dimension, first indices in map (already checked).
  static Distribution irregular(int ndim, const int* dims, const int* block, const int* map);

  int ndim() const { return ndim_; }
  const int* dims() const { return dims_; }
  int nblock(int d) const { return static_cast<int>(start_[d].size()) - 1; }
  int nowners() const;
  // The block of owner `rank`; false (and lo=-1, hi=-2) if it owns nothing.
  bool block_of(int rank, Box& b) const;
  // Owner rank of an element inside the array.
  int owner_of(const int* sub) const;
  // f(owner, piece) for each owner's part of `patch` (patch inside the array).
  template <typename F>
  void for_each_piece(const Box& patch, F&& f) const;
  // map/block arrays (GA's irregular description) of this distribution.
  void describe(std::vector<int>& block, std::vector<int>& map) const;

 private:
  int ndim_ = 0;
  int dims_[kMaxDim] = {};
  std::vector<int> start_[kMaxDim];  // nblock+1 entries, last = dims
  int block_index(int d, int i) const;
  int rank_of(const int* bcoord) const;
};

template <typename F>
void Distribution::for_each_piece(const Box& patch, F&& f) const {
  if (patch.empty()) return;
  int blo[kMaxDim], bhi[kMaxDim], bc[kMaxDim];
  for (int d = 0; d < ndim_; ++d) {
    blo[d] = block_index(d, patch.lo[d]);
    bhi[d] = block_index(d, patch.hi[d]);
    bc[d] = blo[d];
  }
  for (;;) {
    Box piece;
    piece.ndim = ndim_;
    for (int d = 0; d < ndim_; ++d) {
      const auto& s = start_[d];
      piece.lo[d] = std::max(patch.lo[d], s[static_cast<std::size_t>(bc[d])]);
      piece.hi[d] = std::min(patch.hi[d], s[static_cast<std::size_t>(bc[d]) + 1] - 1);
    }
    f(rank_of(bc), static_cast<const Box&>(piece));
    int d = ndim_ - 1;
    for (; d >= 0; --d) {
      if (++bc[d] <= bhi[d]) break;
      bc[d] = blo[d];
    }
    if (d < 0) return;
  }
}

}  // namespace ga

// The plan of a merge of mirrored node copies: who contributes what to each
// tile and which process of each node handles which tiles (the node schedule
// and the tiles' routes are ga/merge_schedule.hpp).  Everything here is a
// function of the array's description and the gathered dirty bitmaps, so
// every process computes the same plan without talking to the others.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ga/array.hpp"
#include "ga/merge_schedule.hpp"
#include "ga/mirror_state.hpp"

namespace ga {

// What one tile needs: the nodes whose values enter the sum.
struct TilePlan {
  std::vector<int> contrib;  // contributing node indices, ascending
  int rep = -1;              // the clean node standing for all clean copies
  long scale = 1;            // ... how many copies it stands for
  bool local_scale = false;  // nothing written, equal copies: x nnodes locally
  Route route = Route::Doubling;
  int home = 0;  // where the Scatter route builds the sum

  bool has(int node) const { return std::find(contrib.begin(), contrib.end(), node) != contrib.end(); }
};

// Dirty nodes contribute their values; clean copies hold the base (zero:
// nothing to add; equal on all nodes: one representative adds count x value).
inline TilePlan plan_tile(const Mirror& m, const std::vector<std::uint64_t>& all, int t) {
  const int P = m.nnodes(), W = m.words();
  TilePlan p;
  for (int n = 0; n < P; ++n)
    if (bit(all.data() + static_cast<std::ptrdiff_t>(n) * W, t)) p.contrib.push_back(n);
  const bool same = m.base[static_cast<std::size_t>(t)] == Base::Same;
  if (p.contrib.empty()) {
    p.local_scale = same;
    return p;
  }
  if (same && static_cast<int>(p.contrib.size()) < P) {
    for (int n = 0; n < P && p.rep < 0; ++n)
      if (!p.has(n)) p.rep = n;
    p.scale = P - static_cast<long>(p.contrib.size());
    p.contrib.insert(std::lower_bound(p.contrib.begin(), p.contrib.end(), p.rep), p.rep);
  }
  return p;
}

// Tile ranges and byte offsets: on a node of nl processes, local process j
// handles tiles [first(nl, j), first(nl, j+1)).
class TileRanges {
 public:
  TileRanges(const TileGrid& tiles, std::size_t elem) : T_(tiles.count()) {
    before_.assign(static_cast<std::size_t>(T_) + 1, 0);
    for (int t = 0; t < T_; ++t)
      before_[static_cast<std::size_t>(t) + 1] =
          before_[static_cast<std::size_t>(t)] + tiles.tile_elems(t) * static_cast<std::int64_t>(elem);
  }
  int count() const { return T_; }
  int first(int nl, int j) const { return static_cast<int>(static_cast<long>(j) * T_ / nl); }
  int handler(int nl, int t) const { return static_cast<int>((static_cast<long>(t + 1) * nl - 1) / T_); }
  std::int64_t before(int t) const { return before_[static_cast<std::size_t>(t)]; }
  std::int64_t bytes(int t) const { return before(t + 1) - before(t); }
  // Bytes of local process j's range, and tile t's offset inside it.
  std::int64_t range_bytes(int nl, int j) const { return before(first(nl, j + 1)) - before(first(nl, j)); }
  std::int64_t offset(int nl, int j, int t) const { return before(t) - before(first(nl, j)); }

 private:
  int T_;
  std::vector<std::int64_t> before_;
};

}  // namespace ga

#include "ga/distribution.hpp"

#include <algorithm>

namespace ga {

namespace {

// A candidate process grid and what it would give.
struct Grid {
  int g[kMaxDim] = {};
  int blk[kMaxDim] = {};
  long owners = 0;
  std::int64_t block_elems = 0;
  long surface = 0;
};

long ceil_div(long a, long b) { return (a + b - 1) / b; }

void evaluate(int ndim, const int* dims, Grid& c) {
  c.owners = 1;
  c.block_elems = 1;
  c.surface = 0;
  for (int d = 0; d < ndim; ++d) {
    c.blk[d] = static_cast<int>(ceil_div(dims[d], c.g[d]));
    c.owners *= ceil_div(dims[d], c.blk[d]);
    c.block_elems *= c.blk[d];
    c.surface += c.blk[d];
  }
}

// Most owners, then smallest largest block, then smallest surface, then the
// grid that splits earlier dimensions more (rows stay whole: contiguous).
bool better(int ndim, const Grid& a, const Grid& b) {
  if (a.owners != b.owners) return a.owners > b.owners;
  if (a.block_elems != b.block_elems) return a.block_elems < b.block_elems;
  if (a.surface != b.surface) return a.surface < b.surface;
  for (int d = 0; d < ndim; ++d)
    if (a.g[d] != b.g[d]) return a.g[d] > b.g[d];
  return false;
}

struct Search {
  int ndim;
  const int* dims;
  const int* chunk;
  Grid cur, best;
  bool have = false;

  // Largest useful split of dimension d: blocks no smaller than chunk[d].
  int max_split(int d) const {
    if (!chunk || chunk[d] <= 0) return dims[d];
    if (chunk[d] >= dims[d]) return 1;
    return std::max(1, dims[d] / chunk[d]);
  }

  void run(int d, long budget) {
    if (d == ndim) {
      evaluate(ndim, dims, cur);
      if (!have || better(ndim, cur, best)) {
        best = cur;
        have = true;
      }
      return;
    }
    const long top = std::min<long>(budget, max_split(d));
    for (long g = 1; g <= top; ++g) {
      // Splits giving the same block extent as g-1 only add empty blocks.
      if (g > 1 && ceil_div(dims[d], g) == ceil_div(dims[d], g - 1)) continue;
      cur.g[d] = static_cast<int>(g);
      run(d + 1, budget / g);
    }
  }
};

}  // namespace

Distribution Distribution::regular(int ndim, const int* dims, const int* chunk, int nprocs) {
  Search s{ndim, dims, chunk, {}, {}, false};
  s.run(0, std::max(1, nprocs));
  Distribution r;
  r.ndim_ = ndim;
  for (int d = 0; d < ndim; ++d) {
    r.dims_[d] = dims[d];
    const int b = s.best.blk[d];
    for (int i = 0; i < dims[d]; i += b) r.start_[d].push_back(i);
    r.start_[d].push_back(dims[d]);
  }
  return r;
}

Distribution Distribution::irregular(int ndim, const int* dims, const int* block, const int* map) {
  Distribution r;
  r.ndim_ = ndim;
  int k = 0;
  for (int d = 0; d < ndim; ++d) {
    r.dims_[d] = dims[d];
    for (int i = 0; i < block[d]; ++i) r.start_[d].push_back(map[k++]);
    r.start_[d].push_back(dims[d]);
  }
  return r;
}

int Distribution::nowners() const {
  int n = 1;
  for (int d = 0; d < ndim_; ++d) n *= nblock(d);
  return n;
}

int Distribution::block_index(int d, int i) const {
  const auto& s = start_[d];
  return static_cast<int>(std::upper_bound(s.begin(), s.end() - 1, i) - s.begin()) - 1;
}

int Distribution::rank_of(const int* bcoord) const {
  int r = 0;
  for (int d = 0; d < ndim_; ++d) r = r * nblock(d) + bcoord[d];
  return r;
}

bool Distribution::block_of(int rank, Box& b) const {
  b.ndim = ndim_;
  if (rank < 0 || rank >= nowners()) {
    for (int d = 0; d < ndim_; ++d) {
      b.lo[d] = -1;
      b.hi[d] = -2;
    }
    return false;
  }
  for (int d = ndim_ - 1; d >= 0; --d) {
    const int nb = nblock(d);
    const int c = rank % nb;
    rank /= nb;
    b.lo[d] = start_[d][static_cast<std::size_t>(c)];
    b.hi[d] = start_[d][static_cast<std::size_t>(c) + 1] - 1;
  }
  return true;
}

int Distribution::owner_of(const int* sub) const {
  int bc[kMaxDim];
  for (int d = 0; d < ndim_; ++d) bc[d] = block_index(d, sub[d]);
  return rank_of(bc);
}

void Distribution::describe(std::vector<int>& block, std::vector<int>& map) const {
  block.clear();
  map.clear();
  for (int d = 0; d < ndim_; ++d) {
    block.push_back(nblock(d));
    map.insert(map.end(), start_[d].begin(), start_[d].end() - 1);
  }
}

}  // namespace ga

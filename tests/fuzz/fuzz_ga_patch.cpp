// libFuzzer target: GA's patch decomposition (ga/distribution.hpp).  For any
// regular or irregular distribution and any patch inside the array, the
// pieces for_each_piece yields must lie inside the patch and inside their
// owner's block, and together cover every element of the patch exactly once.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ga/box.hpp"
#include "ga/distribution.hpp"

namespace {

struct Input {
  const uint8_t* p;
  std::size_t n;
  int next(int lo, int hi) {  // a value in [lo, hi]
    int v = 0;
    if (n) v = *p++, --n;
    return lo + v % (hi - lo + 1);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Input in{data, size};
  const int ndim = in.next(1, 4);
  int dims[ga::kMaxDim], chunk[ga::kMaxDim];
  long total = 1;
  for (int d = 0; d < ndim; ++d) {
    dims[d] = in.next(1, 40);
    chunk[d] = in.next(-1, 12);
    total *= dims[d];
  }
  const int nprocs = in.next(1, 64);
  ga::Distribution dist;
  if (in.next(0, 1)) {
    dist = ga::Distribution::regular(ndim, dims, chunk, nprocs);
  } else {
    // Irregular: block[d] first indices, strictly increasing, map[0] = 0.
    int block[ga::kMaxDim];
    std::vector<int> map;
    for (int d = 0; d < ndim; ++d) {
      int at = 0;
      block[d] = 0;
      while (at < dims[d]) {
        map.push_back(at);
        ++block[d];
        at += in.next(1, 10);
      }
    }
    dist = ga::Distribution::irregular(ndim, dims, block, map.data());
  }
  ga::Box patch;
  patch.ndim = ndim;
  for (int d = 0; d < ndim; ++d) {
    patch.lo[d] = in.next(0, dims[d] - 1);
    patch.hi[d] = in.next(patch.lo[d], dims[d] - 1);
  }
  std::vector<uint8_t> hits(static_cast<std::size_t>(total), 0);
  dist.for_each_piece(patch, [&](int owner, const ga::Box& piece) {
    ga::Box blk;
    if (owner < 0 || owner >= dist.nowners() || !dist.block_of(owner, blk)) std::abort();
    for (int d = 0; d < ndim; ++d)
      if (piece.lo[d] < patch.lo[d] || piece.hi[d] > patch.hi[d] || piece.lo[d] < blk.lo[d] ||
          piece.hi[d] > blk.hi[d] || piece.lo[d] > piece.hi[d])
        std::abort();
    int idx[ga::kMaxDim];
    std::memcpy(idx, piece.lo, sizeof idx);
    for (;;) {
      long flat = 0;
      for (int d = 0; d < ndim; ++d) flat = flat * dims[d] + idx[d];
      if (hits[static_cast<std::size_t>(flat)]++) std::abort();  // covered twice
      if (dist.owner_of(idx) != owner) std::abort();
      int d = ndim - 1;
      for (; d >= 0; --d) {
        if (++idx[d] <= piece.hi[d]) break;
        idx[d] = piece.lo[d];
      }
      if (d < 0) break;
    }
  });
  // Every element of the patch, once.
  int idx[ga::kMaxDim];
  std::memcpy(idx, patch.lo, sizeof idx);
  for (;;) {
    long flat = 0;
    for (int d = 0; d < ndim; ++d) flat = flat * dims[d] + idx[d];
    if (hits[static_cast<std::size_t>(flat)] != 1) std::abort();
    int d = ndim - 1;
    for (; d >= 0; --d) {
      if (++idx[d] <= patch.hi[d]) break;
      idx[d] = patch.lo[d];
    }
    if (d < 0) break;
  }
  return 0;
}

#include "ga/patch_map.hpp"

#include <cstring>
#include <vector>

#include "ga/errors.hpp"
#include "ga/patch_io.hpp"

namespace ga {

namespace {

int squeeze(const Box& b, int* dims) {
  int n = 0;
  for (int d = 0; d < b.ndim; ++d)
    if (b.extent(d) > 1) dims[n++] = d;
  return n;
}

}  // namespace

// Shapes equal up to unit dimensions (reversed if trans).
Box mapped_box(const PatchMap& m, const Box& piece) {
  Box s;
  s.ndim = m.src.ndim;
  for (int e = 0; e < s.ndim; ++e) s.lo[e] = s.hi[e] = m.src.lo[e];
  for (int i = 0; i < m.nsq; ++i) {
    const int e = m.src_dims[m.trans ? m.nsq - 1 - i : i];
    const int d = m.dst_dims[i];
    s.lo[e] = m.src.lo[e] + (piece.lo[d] - m.dst.lo[d]);
    s.hi[e] = m.src.lo[e] + (piece.hi[d] - m.dst.lo[d]);
  }
  return s;
}

PatchMap make_patch_map(const char* call, const Box& src, const Box& dst, bool trans) {
  PatchMap m;
  m.src = src;
  m.dst = dst;
  m.trans = trans;
  if (src.elems() != dst.elems())
    fail(call, "the patches hold %lld and %lld elements; they must hold the same number",
         static_cast<long long>(src.elems()), static_cast<long long>(dst.elems()));
  const int ns = squeeze(src, m.src_dims);
  const int nd = squeeze(dst, m.dst_dims);
  m.nsq = nd;
  m.same_shape = ns == nd;
  for (int i = 0; m.same_shape && i < nd; ++i) {
    const int e = m.src_dims[trans ? nd - 1 - i : i];
    if (src.extent(e) != dst.extent(m.dst_dims[i])) m.same_shape = false;
  }
  if (trans && !m.same_shape)
    fail(call, "a transposed copy needs patches of transposed shapes (reversed extents)");
  if (m.nsq <= 1) m.trans = false;  // a vector is its own transpose
  return m;
}

void reverse_axes(const Box& b, std::size_t elem, const void* in, void* out) {
  int x[kMaxDim];
  int k = 0;
  for (int d = 0; d < b.ndim; ++d)
    if (b.extent(d) > 1) x[k++] = b.extent(d);
  std::int64_t ostride[kMaxDim];  // output dimension j has extent x[k-1-j]
  std::int64_t s = 1;
  for (int j = k - 1; j >= 0; --j) {
    ostride[j] = s;
    s *= x[k - 1 - j];
  }
  const std::int64_t total = s;
  const auto* src = static_cast<const char*>(in);
  auto* dst = static_cast<char*>(out);
  int idx[kMaxDim] = {};
  for (std::int64_t lin = 0; lin < total; ++lin) {
    std::int64_t o = 0;
    for (int m = 0; m < k; ++m) o += idx[m] * ostride[k - 1 - m];
    std::memcpy(dst + o * static_cast<std::int64_t>(elem), src + lin * static_cast<std::int64_t>(elem), elem);
    for (int m = k - 1; m >= 0; --m) {
      if (++idx[m] < x[m]) break;
      idx[m] = 0;
    }
  }
}

void fetch_mapped(Array& a, const PatchMap& m, const Box& piece, void* buf) {
  if (m.same_shape) {
    const Box s = mapped_box(m, piece);
    if (!m.trans) {
      get_box(a, s, buf);
      return;
    }
    std::vector<char> tmp(static_cast<std::size_t>(s.elems()) * a.elem);
    get_box(a, s, tmp.data());
    reverse_axes(s, a.elem, tmp.data(), buf);
    return;
  }
  // Reshape: each row of the piece is a run of the destination's linear
  // order, found in the source as up to 2*ndim-1 boxes.
  char* out = static_cast<char*>(buf);
  const int len = piece.extent(piece.ndim - 1);
  for_each_row(piece, [&](const int* row) {
    const std::int64_t first = offset_in(m.dst, row);
    linear_range_boxes(m.src, first, first + len, [&](const Box& b) {
      get_box(a, b, out);
      out += b.elems() * static_cast<std::int64_t>(a.elem);
    });
  });
}

}  // namespace ga

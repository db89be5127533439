// Element correspondence between two patches with the same number of
// elements, as NGA_Copy_patch and NGA_Ddot_patch define it: element k of the
// destination patch (row-major) is element k of the source patch, or, with
// `trans`, the destination is the transpose of the source (its non-unit
// dimensions reversed).
#pragma once
#include "ga/array.hpp"

namespace ga {

struct PatchMap {
  Box src, dst;
  bool trans = false;
  // Non-unit dimensions of each patch, in order.
  int nsq = 0;
  int src_dims[kMaxDim] = {}, dst_dims[kMaxDim] = {};
  bool same_shape = false;  // squeezed shapes equal (or reversed with trans)
};

// Checks sizes (and shapes for a transpose); reports errors as `call`.
PatchMap make_patch_map(const char* call, const Box& src, const Box& dst, bool trans);

// The box of m.src matching `piece` of m.dst (requires m.same_shape).
Box mapped_box(const PatchMap& m, const Box& piece);

// Fills buf, dense in the layout of `piece` (a box inside m.dst), with the
// elements of array `a` (holding m.src) that correspond to it.
void fetch_mapped(Array& a, const PatchMap& m, const Box& piece, void* buf);

// Boxes of the destination patch this process should produce when the
// `participants` (group ranks of the calling group, I am `me` among them)
// share a patch: my block when `own_block`, else a linear slice of the patch.
template <typename F>
void my_share(const Array& dst, const Box& patch, bool own_block, int me, int participants, F&& f);

// x (dense, layout of box `b`) viewed with its non-unit dimensions reversed.
void reverse_axes(const Box& b, std::size_t elem, const void* in, void* out);

}  // namespace ga

#include "ga/box.hpp"

template <typename F>
void ga::my_share(const Array& dst, const Box& patch, bool own_block, int me, int participants, F&& f) {
  if (own_block) {
    if (dst.my_owner < 0) return;
    const Box piece = intersect(dst.owner_box[static_cast<std::size_t>(dst.my_owner)], patch);
    if (!piece.empty()) f(piece);
    return;
  }
  const std::int64_t n = patch.elems();
  const std::int64_t first = n * me / participants, last = n * (me + 1) / participants;
  linear_range_boxes(patch, first, last, f);
}

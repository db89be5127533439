// Copies between arrays and patches (GA_Copy, NGA_Copy_patch, GA_Transpose)
// and GA_Symmetrize.  Copies between groups are called by the processes of
// the smaller group: they write their own blocks when the destination lives
// on their group, otherwise they share the destination patch in linear slices.
#include <cstring>
#include <vector>

#include "ga/array_alloc.hpp"
#include "ga/checks.hpp"
#include "ga/errors.hpp"
#include "ga/mirror_merge.hpp"
#include "ga/mirror_state.hpp"
#include "ga/patch_io.hpp"
#include "ga/patch_map.hpp"
#include "ga/registry.hpp"
#include "ga/types.hpp"

using namespace ga;

namespace {

// The array whose group calls an operation between a and b: the smaller one.
const Array& callers(const Array& a, const Array& b) { return a.members.size() < b.members.size() ? a : b; }

void copy_patch(const char* call, bool trans, Array& a, const Box& src, Array& b, const Box& dst) {
  const PatchMap m = make_patch_map(call, src, dst, trans);
  if (&a == &b && !intersect(src, dst).empty())
    fail(call, "source and destination patches of array %d overlap", a.handle);
  const Array& s = callers(a, b);
  if (b.mirrored() && &s != &b)
    fail(call, "copying into mirrored array %d must be called by all processes of its group", b.handle);
  const bool own = &s == &b;
  sync_begin(s);
  std::vector<char> buf;
  my_share(b, dst, own, s.my_rank, static_cast<int>(s.members.size()), [&](const Box& piece) {
    buf.resize(static_cast<std::size_t>(piece.elems()) * b.elem);
    fetch_mapped(a, m, piece, buf.data());
    put_box(b, piece, buf.data());
  });
  sync_end(s);
}

void check_same_dims(const char* call, const Array& a, const Array& b) {
  bool same = a.ndim == b.ndim;
  for (int d = 0; same && d < a.ndim; ++d) same = a.dims[d] == b.dims[d];
  if (!same)
    fail(call, "arrays %d %s and %d %s have different shapes", a.handle, show_index(a.ndim, a.dims).c_str(),
         b.handle, show_index(b.ndim, b.dims).c_str());
}

// Distributed -> mirrored, as GA defines it: zero every node copy, put each
// process's block into its node's copy, merge the copies.
void copy_into_mirror(Array& a, Array& b) {
  if (a.group != b.group)
    fail("GA_Copy", "copying distributed array %d into mirrored array %d needs both on the same group",
         a.handle, b.handle);
  sync_begin(b);
  if (b.my_owner >= 0)
    std::memset(b.owner_base[static_cast<std::size_t>(b.my_owner)], 0,
                static_cast<std::size_t>(b.owner_box[static_cast<std::size_t>(b.my_owner)].elems()) * b.elem);
  reset_states(b, Base::Zero);
  group_sync(b);
  if (a.my_owner >= 0)
    put_box(b, a.owner_box[static_cast<std::size_t>(a.my_owner)],
            a.owner_base[static_cast<std::size_t>(a.my_owner)]);
  merge_mirrored(b);
}

void copy_states(Array& a, Array& b) {
  group_sync(b);
  b.mirror->base = a.mirror->base;
  if (b.my_rank == b.mirror->node_members[static_cast<std::size_t>(b.mirror->my_node)][0])
    for (int i = 0; i < b.mirror->words(); ++i)
      __atomic_store_n(&b.mirror->dirty[i], __atomic_load_n(&a.mirror->dirty[i], __ATOMIC_RELAXED),
                       __ATOMIC_RELAXED);
}

}  // namespace

extern "C" {

void GA_Copy(int g_a, int g_b) {
  guard("GA_Copy", [&] {
    Registry& r = reg("GA_Copy");
    Array& a = r.array("GA_Copy", g_a);
    Array& b = r.array("GA_Copy", g_b);
    check_same_type("GA_Copy", a, b);
    check_same_dims("GA_Copy", a, b);
    if (g_a == g_b) return;
    if (!a.mirrored() && b.mirrored()) {
      copy_into_mirror(a, b);
      return;
    }
    const bool states = a.mirrored() && b.mirrored();
    copy_patch("GA_Copy", false, a, a.whole(), b, b.whole());
    if (states) {
      copy_states(a, b);
      group_sync(b);
    }
  });
}

void NGA_Copy_patch(char trans, int g_a, int alo[], int ahi[], int g_b, int blo[], int bhi[]) {
  guard("NGA_Copy_patch", [&] {
    const char* call = "NGA_Copy_patch";
    Registry& r = reg(call);
    Array& a = r.array(call, g_a);
    Array& b = r.array(call, g_b);
    check_same_type(call, a, b);
    const bool t = check_trans(call, trans, "trans");
    Box src, dst;
    const bool ne1 = check_patch(call, a, alo, ahi, src);
    const bool ne2 = check_patch(call, b, blo, bhi, dst);
    if (ne1 != ne2) fail(call, "one patch is empty and the other is not");
    if (!ne1) return;
    copy_patch(call, t, a, src, b, dst);
  });
}

void GA_Transpose(int g_a, int g_b) {
  guard("GA_Transpose", [&] {
    const char* call = "GA_Transpose";
    Registry& r = reg(call);
    Array& a = r.array(call, g_a);
    Array& b = r.array(call, g_b);
    check_same_type(call, a, b);
    if (a.ndim != 2 || b.ndim != 2 || a.dims[0] != b.dims[1] || a.dims[1] != b.dims[0])
      fail(call, "arrays %d %s and %d %s are not 2-dimensional with transposed shapes", g_a,
           show_index(a.ndim, a.dims).c_str(), g_b, show_index(b.ndim, b.dims).c_str());
    if (g_a == g_b) fail(call, "source and destination are the same array %d", g_a);
    copy_patch(call, true, a, a.whole(), b, b.whole());
  });
}

void GA_Symmetrize(int g_a) {
  guard("GA_Symmetrize", [&] {
    const char* call = "GA_Symmetrize";
    Array& a = reg(call).array(call, g_a);
    if (a.ndim != 2 || a.dims[0] != a.dims[1])
      fail(call, "array %d %s is not a square 2-dimensional array", g_a, show_index(a.ndim, a.dims).c_str());
    sync_begin(a);
    // Read the mirror image of my block before anyone writes.
    std::vector<char> img;
    Box mine;
    if (a.my_owner >= 0) {
      mine = a.owner_box[static_cast<std::size_t>(a.my_owner)];
      Box t;
      t.ndim = 2;
      t.lo[0] = mine.lo[1];
      t.hi[0] = mine.hi[1];
      t.lo[1] = mine.lo[0];
      t.hi[1] = mine.hi[0];
      img.resize(static_cast<std::size_t>(t.elems()) * a.elem);
      get_box(a, t, img.data());
    }
    group_sync(a);
    if (a.my_owner >= 0) {
      const int rows = mine.extent(0), cols = mine.extent(1);
      dispatch(a.type, [&](auto zero) {
        using T = decltype(zero);
        T* x = reinterpret_cast<T*>(a.owner_base[static_cast<std::size_t>(a.my_owner)]);
        const T* y = reinterpret_cast<const T*>(img.data());
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j) x[i * cols + j] = (x[i * cols + j] + y[j * rows + i]) / T(2);
      });
      mark_dirty(a, mine);
    }
    sync_end(a);
  });
}

}  // extern "C"

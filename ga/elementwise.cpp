// Whole-array element operations (zero, fill, scale, add) and dot products.
// Each process works on its own block (its node copy's block for mirrored
// arrays); operands held elsewhere are fetched patch by patch.  Dot products
// of mirrored arrays are reduced within the node: every node has them all.
#include <cstring>
#include <vector>

#include "ga/array_alloc.hpp"
#include "ga/checks.hpp"
#include "ga/errors.hpp"
#include "ga/mirror_state.hpp"
#include "ga/patch_io.hpp"
#include "ga/patch_map.hpp"
#include "ga/registry.hpp"
#include "ga/types.hpp"
#include "message.h"

using namespace ga;

namespace {

std::int64_t my_elems(const Array& a) {
  return a.my_owner >= 0 ? a.owner_box[static_cast<std::size_t>(a.my_owner)].elems() : 0;
}
char* my_block(const Array& a) {
  return a.my_owner >= 0 ? a.owner_base[static_cast<std::size_t>(a.my_owner)] : nullptr;
}

void check_same(const char* call, const Array& a, const Array& b) {
  check_same_type(call, a, b);
  bool same = a.ndim == b.ndim;
  for (int d = 0; same && d < a.ndim; ++d) same = a.dims[d] == b.dims[d];
  if (!same)
    fail(call, "arrays %d %s and %d %s have different shapes", a.handle, show_index(a.ndim, a.dims).c_str(),
         b.handle, show_index(b.ndim, b.dims).c_str());
}

// Sum of the per-process partial dot products over the array's group (its
// node only when mirrored).
double reduce_dot(Array& a, double x) {
  armci_msg_group_gop_scope(a.mirrored() ? SCOPE_NODE : SCOPE_ALL, &x, 1, const_cast<char*>("+"),
                            ARMCI_DOUBLE, &a.armci_group);
  return x;
}

double dot(const double* x, const double* y, std::int64_t n) {
  double s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

}  // namespace

extern "C" {

void GA_Zero(int g_a) {
  guard("GA_Zero", [&] {
    Array& a = reg("GA_Zero").array("GA_Zero", g_a);
    sync_begin(a);
    if (char* p = my_block(a)) std::memset(p, 0, static_cast<std::size_t>(my_elems(a)) * a.elem);
    reset_states(a, Base::Zero);
    sync_end(a);
  });
}

void GA_Fill(int g_a, void* value) {
  guard("GA_Fill", [&] {
    Array& a = reg("GA_Fill").array("GA_Fill", g_a);
    check_ptr("GA_Fill", "value", value);
    sync_begin(a);
    if (char* p = my_block(a)) fill_elements(a.type, p, my_elems(a), value);
    reset_states(a, is_zero_value(a.type, value) ? Base::Zero : Base::Same);
    sync_end(a);
  });
}

// Scaling keeps every tile state: equal copies stay equal, zeros stay zero.
void GA_Scale(int g_a, void* value) {
  guard("GA_Scale", [&] {
    Array& a = reg("GA_Scale").array("GA_Scale", g_a);
    check_ptr("GA_Scale", "value", value);
    sync_begin(a);
    if (char* p = my_block(a)) scale_elements(a.type, p, my_elems(a), value);
    sync_end(a);
  });
}

void GA_Add(void* alpha, int g_a, void* beta, int g_b, int g_c) {
  guard("GA_Add", [&] {
    const char* call = "GA_Add";
    Registry& r = reg(call);
    Array& a = r.array(call, g_a);
    Array& b = r.array(call, g_b);
    Array& c = r.array(call, g_c);
    check_same(call, a, c);
    check_same(call, b, c);
    check_ptr(call, "alpha", alpha);
    check_ptr(call, "beta", beta);
    sync_begin(c);
    if (c.my_owner >= 0) {
      const Box& box = c.owner_box[static_cast<std::size_t>(c.my_owner)];
      const std::int64_t n = box.elems();
      std::vector<char> x(static_cast<std::size_t>(n) * c.elem), y(x.size());
      get_box(a, box, x.data());
      get_box(b, box, y.data());
      dispatch(c.type, [&](auto zero) {
        using T = decltype(zero);
        T al, be;
        std::memcpy(&al, alpha, sizeof al);
        std::memcpy(&be, beta, sizeof be);
        const T* xa = reinterpret_cast<const T*>(x.data());
        const T* yb = reinterpret_cast<const T*>(y.data());
        T* out = reinterpret_cast<T*>(my_block(c));
        for (std::int64_t i = 0; i < n; ++i) out[i] = al * xa[i] + be * yb[i];
      });
      mark_dirty(c, box);
    }
    sync_end(c);
  });
}

double GA_Ddot(int g_a, int g_b) {
  return guard("GA_Ddot", [&] {
    const char* call = "GA_Ddot";
    Registry& r = reg(call);
    Array& a = r.array(call, g_a);
    Array& b = r.array(call, g_b);
    check_type(call, a, C_DBL);
    check_same(call, a, b);
    sync_begin(a);
    double s = 0;
    if (a.my_owner >= 0) {
      const Box& box = a.owner_box[static_cast<std::size_t>(a.my_owner)];
      std::vector<double> y(static_cast<std::size_t>(box.elems()));
      get_box(b, box, y.data());
      s = dot(reinterpret_cast<const double*>(my_block(a)), y.data(), box.elems());
    }
    return reduce_dot(a, s);
  });
}

double NGA_Ddot_patch(int g_a, char t_a, int alo[], int ahi[], int g_b, char t_b, int blo[], int bhi[]) {
  return guard("NGA_Ddot_patch", [&] {
    const char* call = "NGA_Ddot_patch";
    Registry& r = reg(call);
    Array& a = r.array(call, g_a);
    Array& b = r.array(call, g_b);
    check_type(call, a, C_DBL);
    check_type(call, b, C_DBL);
    const bool ta = check_trans(call, t_a, "t_a");
    const bool tb = check_trans(call, t_b, "t_b");
    Box pa, pb;
    const bool ne1 = check_patch(call, a, alo, ahi, pa);
    const bool ne2 = check_patch(call, b, blo, bhi, pb);
    if (ne1 != ne2) fail(call, "one patch is empty and the other is not");
    sync_begin(a);
    double s = 0;
    if (ne1) {
      // Pair each element of a's patch with its partner in b's patch.
      const PatchMap m = make_patch_map(call, pb, pa, ta != tb);
      std::vector<double> x, y;
      my_share(a, pa, true, a.my_rank, static_cast<int>(a.members.size()), [&](const Box& piece) {
        x.resize(static_cast<std::size_t>(piece.elems()));
        y.resize(x.size());
        get_box(a, piece, x.data());
        fetch_mapped(b, m, piece, y.data());
        s += dot(x.data(), y.data(), piece.elems());
      });
    }
    return reduce_dot(a, s);
  });
}

}  // extern "C"

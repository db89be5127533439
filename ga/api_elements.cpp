// Element-wise access: gather, scatter, scatter-accumulate, read-and-increment.
// The elements of each owner, on this node or another, go in one vector
// request (a vector request addresses one process's memory); the router
// picks the transport and the profile counts the call.
#include <climits>
#include <cstring>
#include <map>

#include "armci/armcix.h"
#include "ga/checks.hpp"
#include "ga/errors.hpp"
#include "ga/mirror_state.hpp"
#include "ga/patch_io.hpp"
#include "ga/registry.hpp"
#include "ga/types.hpp"

using namespace ga;

namespace {

struct Batch {
  std::vector<void*> mine, theirs;
};

void elements(const char* call, Op op, int g_a, void* v, int** subs, int n, const void* alpha) {
  Registry& r = reg(call);
  Array& a = r.array(call, g_a);
  if (n < 0) fail(call, "n = %d is negative", n);
  if (n == 0) return;
  check_ptr(call, "v", v);
  check_ptr(call, "subsArray", subs);
  if (op == Op::Acc) check_ptr(call, "alpha", alpha);
  const std::size_t es = a.elem;
  std::map<int, Batch> by_owner;  // world rank
  int last = -1;
  Batch* b = nullptr;  // last's: runs of subscripts usually share an owner
  for (int i = 0; i < n; ++i) {
    const int* sub = subs[i];
    check_subscript(call, a, sub, "subscript");
    const int j = a.dist.owner_of(sub);
    if (j != last) {
      b = &by_owner[a.owner_world[static_cast<std::size_t>(j)]];
      last = j;
    }
    b->mine.push_back(static_cast<char*>(v) + static_cast<std::size_t>(i) * es);
    b->theirs.push_back(a.element(j, sub));
    if (op != Op::Get && a.mirrored()) mark_dirty(a, Box::of(a.ndim, sub, sub));
  }
  const int acc_op = type_info(a.type)->acc_op;
  void* scale = const_cast<void*>(alpha);
  auto giov = [&](Batch& b) {
    armci_giov_t g;
    g.src_ptr_array = op == Op::Get ? b.theirs.data() : b.mine.data();
    g.dst_ptr_array = op == Op::Get ? b.mine.data() : b.theirs.data();
    g.ptr_array_len = static_cast<int>(b.mine.size());
    g.bytes = static_cast<int>(es);
    return g;
  };
  std::vector<armci_hdl_t> hs;
  for (auto& [w, b] : by_owner) {
    armci_giov_t g = giov(b);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    if (op == Op::Put)
      ARMCI_NbPutV(&g, 1, w, &h);
    else if (op == Op::Get)
      ARMCI_NbGetV(&g, 1, w, &h);
    else
      ARMCI_NbAccV(acc_op, scale, &g, 1, w, &h);
    if (h) hs.push_back(h);
  }
  for (armci_hdl_t& h : hs) ARMCI_Wait(&h);
}

}  // namespace

extern "C" {

void NGA_Gather(int g_a, void* v, int* subsArray[], int n) {
  guard("NGA_Gather", [&] { elements("NGA_Gather", Op::Get, g_a, v, subsArray, n, nullptr); });
}

void NGA_Scatter(int g_a, void* v, int* subsArray[], int n) {
  guard("NGA_Scatter", [&] { elements("NGA_Scatter", Op::Put, g_a, v, subsArray, n, nullptr); });
}

void NGA_Scatter_acc(int g_a, void* v, int* subsArray[], int n, void* alpha) {
  guard("NGA_Scatter_acc", [&] { elements("NGA_Scatter_acc", Op::Acc, g_a, v, subsArray, n, alpha); });
}

long NGA_Read_inc(int g_a, int subscript[], long inc) {
  return guard("NGA_Read_inc", [&]() -> long {
    const char* call = "NGA_Read_inc";
    Registry& r = reg(call);
    Array& a = r.array(call, g_a);
    if (a.type != C_INT && a.type != C_LONG && a.type != C_LONGLONG)
      fail(call, "array %d ('%s') is %s; NGA_Read_inc needs C_INT, C_LONG or C_LONGLONG", g_a, a.name.c_str(),
           type_info(a.type)->name);
    check_subscript(call, a, subscript, "subscript");
    // An int element takes an int increment (ARMCI_Rmw's); long elements take
    // any long through armci-ofi's ARMCI_Rmw_long.
    if (a.type == C_INT && (inc > INT_MAX || inc < INT_MIN))
      fail(call, "inc = %ld does not fit in the int elements of array %d ('%s')", inc, g_a, a.name.c_str());
    const int j = a.dist.owner_of(subscript);
    void* addr = a.element(j, subscript);
    const int w = a.owner_world[static_cast<std::size_t>(j)];
    long old = 0;
    if (a.type == C_INT) {
      int o = 0;
      ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &o, addr, static_cast<int>(inc), w);
      old = o;
    } else {
      ARMCI_Rmw_long(ARMCI_FETCH_AND_ADD_LONG, &old, addr, inc, w);
    }
    if (a.mirrored()) mark_dirty(a, Box::of(a.ndim, subscript, subscript));
    return old;
  });
}

}  // extern "C"

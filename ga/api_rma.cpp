// One-sided patch transfers: NGA_Put/Get/Acc, strided and non-blocking.
#include "ga/checks.hpp"
#include "ga/errors.hpp"
#include "ga/patch_io.hpp"
#include "ga/registry.hpp"

using namespace ga;

namespace {

// GA handle = slot + 1 in the low 16 bits, generation above: a stale or
// forged handle is recognised instead of waiting on someone else's request.
int nb_open(Registry& r, std::vector<armci_hdl_t>&& hs) {
  std::size_t i = 0;
  while (i < r.nb.size() && r.nb[i].in_use) ++i;
  if (i == r.nb.size()) r.nb.emplace_back();
  if (i >= 0xffff) fail("NGA_NbPut", "more than 65535 non-blocking requests are pending");
  NbSlot& s = r.nb[i];
  s.in_use = true;
  s.gen = (s.gen + 1) & 0x7fff;
  s.handles = std::move(hs);
  return static_cast<int>((s.gen << 16) | (i + 1));
}

NbSlot* nb_find(const char* call, Registry& r, ga_nbhdl_t* h) {
  if (!h) fail(call, "nbhandle is NULL");
  if (*h == 0) return nullptr;  // nothing pending (completed at once)
  const unsigned v = static_cast<unsigned>(*h);
  const std::size_t i = (v & 0xffff) - 1;
  if ((v & 0xffff) == 0 || i >= r.nb.size() || !r.nb[i].in_use || r.nb[i].gen != (v >> 16))
    fail(call, "nbhandle %d is not a pending request (already waited for, or never issued)", *h);
  return &r.nb[i];
}

void transfer(const char* call, Op op, int g_a, int* lo, int* hi, int* skip, void* buf, int* ld, void* alpha,
              ga_nbhdl_t* nbh) {
  Registry& r = reg(call);
  Array& a = r.array(call, g_a);
  if (nbh) *nbh = 0;
  Box patch;
  if (!check_patch(call, a, lo, hi, patch)) return;
  Selection sel;
  if (skip) {
    for (int d = 0; d < a.ndim; ++d)
      if (skip[d] < 1) fail(call, "skip[%d] = %d is not positive", d, skip[d]);
    sel = Selection::strided(patch, skip);
  } else {
    sel = Selection::dense(patch);
  }
  check_ptr(call, "buf", buf);
  check_ld(call, a, ld, sel.count);
  if (op == Op::Acc) check_ptr(call, "alpha", alpha);
  UserBuf u = UserBuf::with_ld(buf, a.ndim, sel.count, ld);
  if (!nbh) {
    move(a, op, sel, u, alpha, nullptr);
    return;
  }
  std::vector<armci_hdl_t> hs;
  move(a, op, sel, u, alpha, &hs);
  if (!hs.empty()) *nbh = nb_open(r, std::move(hs));
}

}  // namespace

extern "C" {

void NGA_Put(int g_a, int lo[], int hi[], void* buf, int ld[]) {
  guard("NGA_Put", [&] { transfer("NGA_Put", Op::Put, g_a, lo, hi, nullptr, buf, ld, nullptr, nullptr); });
}

void NGA_Get(int g_a, int lo[], int hi[], void* buf, int ld[]) {
  guard("NGA_Get", [&] { transfer("NGA_Get", Op::Get, g_a, lo, hi, nullptr, buf, ld, nullptr, nullptr); });
}

void NGA_Acc(int g_a, int lo[], int hi[], void* buf, int ld[], void* alpha) {
  guard("NGA_Acc", [&] { transfer("NGA_Acc", Op::Acc, g_a, lo, hi, nullptr, buf, ld, alpha, nullptr); });
}

void NGA_Strided_put(int g_a, int lo[], int hi[], int skip[], void* buf, int ld[]) {
  guard("NGA_Strided_put", [&] {
    check_ptr("NGA_Strided_put", "skip", skip);
    transfer("NGA_Strided_put", Op::Put, g_a, lo, hi, skip, buf, ld, nullptr, nullptr);
  });
}

void NGA_Strided_get(int g_a, int lo[], int hi[], int skip[], void* buf, int ld[]) {
  guard("NGA_Strided_get", [&] {
    check_ptr("NGA_Strided_get", "skip", skip);
    transfer("NGA_Strided_get", Op::Get, g_a, lo, hi, skip, buf, ld, nullptr, nullptr);
  });
}

void NGA_Strided_acc(int g_a, int lo[], int hi[], int skip[], void* buf, int ld[], void* alpha) {
  guard("NGA_Strided_acc", [&] {
    check_ptr("NGA_Strided_acc", "skip", skip);
    transfer("NGA_Strided_acc", Op::Acc, g_a, lo, hi, skip, buf, ld, alpha, nullptr);
  });
}

void NGA_NbPut(int g_a, int lo[], int hi[], void* buf, int ld[], ga_nbhdl_t* nbhandle) {
  guard("NGA_NbPut", [&] {
    check_ptr("NGA_NbPut", "nbhandle", nbhandle);
    transfer("NGA_NbPut", Op::Put, g_a, lo, hi, nullptr, buf, ld, nullptr, nbhandle);
  });
}

void NGA_NbGet(int g_a, int lo[], int hi[], void* buf, int ld[], ga_nbhdl_t* nbhandle) {
  guard("NGA_NbGet", [&] {
    check_ptr("NGA_NbGet", "nbhandle", nbhandle);
    transfer("NGA_NbGet", Op::Get, g_a, lo, hi, nullptr, buf, ld, nullptr, nbhandle);
  });
}

void NGA_NbAcc(int g_a, int lo[], int hi[], void* buf, int ld[], void* alpha, ga_nbhdl_t* nbhandle) {
  guard("NGA_NbAcc", [&] {
    check_ptr("NGA_NbAcc", "nbhandle", nbhandle);
    transfer("NGA_NbAcc", Op::Acc, g_a, lo, hi, nullptr, buf, ld, alpha, nbhandle);
  });
}

void NGA_NbWait(ga_nbhdl_t* nbhandle) {
  guard("NGA_NbWait", [&] {
    Registry& r = reg("NGA_NbWait");
    NbSlot* s = nb_find("NGA_NbWait", r, nbhandle);
    if (!s) return;
    for (armci_hdl_t& h : s->handles) ARMCI_Wait(&h);
    s->handles.clear();
    s->in_use = false;
    *nbhandle = 0;
  });
}

int NGA_NbTest(ga_nbhdl_t* nbhandle) {
  return guard("NGA_NbTest", [&] {
    Registry& r = reg("NGA_NbTest");
    NbSlot* s = nb_find("NGA_NbTest", r, nbhandle);
    if (!s) return 1;
    bool done = true;
    for (armci_hdl_t& h : s->handles)
      if (h && ARMCI_Test(&h) != 0) done = false;  // ARMCI_Test: 0 = complete
    if (!done) return 0;
    s->handles.clear();
    s->in_use = false;
    *nbhandle = 0;
    return 1;
  });
}

}  // extern "C"

#include <cstring>
#include <vector>

#include "armci/overlap.hpp"
#include "armci/rma.hpp"
#include "armci/route.hpp"
#include "armci/validate.hpp"
#include "armci/profiling.hpp"

namespace armci::rma {

namespace {

enum class Dir { Put, Get, Acc };

// Validates every remote piece and collects (local, remote, bytes) triples
// into this thread's reused buffer (no allocation once warm); *at is where
// the first piece goes.
std::vector<transport::Piece>& pieces(Runtime& r, const char* call, armci_giov_t* darr, int len, int proc,
                                      Dir dir, transport::Target* at) {
  thread_local std::vector<transport::Piece> out;
  out.clear();
  for (int i = 0; i < len; ++i) {
    const armci_giov_t& d = darr[i];
    if (d.bytes == 0) continue;
    const auto n = static_cast<std::size_t>(d.bytes);
    for (int j = 0; j < d.ptr_array_len; ++j) {
      void* s = d.src_ptr_array[j];
      void* t = d.dst_ptr_array[j];
      void* remote = dir == Dir::Get ? s : t;
      void* local = dir == Dir::Get ? t : s;
      check_local(call, dir == Dir::Get ? "destination" : "source", local, n);
      const transport::Target& to = check_remote(r, call, dir == Dir::Get ? "source" : "destination", proc, remote, n);
      if (out.empty()) *at = to;
      out.push_back({local, reinterpret_cast<uintptr_t>(remote), n});
    }
  }
  return out;
}

// Destination pieces of a put or get must not partly overlap (a malformed
// descriptor).  Pieces that name the very same bytes are allowed: GA's
// NGA_Scatter passes duplicate subscripts.  When such duplicates carry
// different data the result is whichever lands last, which the network does
// not order, so that is reported once per process.
void check_overlap(Runtime& r, const char* call, Dir dir, int proc, const std::vector<transport::Piece>& ps) {
  auto dst = [dir](const transport::Piece& p) {
    return dir == Dir::Put ? p.remote : reinterpret_cast<uintptr_t>(p.local);
  };
  thread_local std::vector<DstRange> ranges;
  ranges.clear();
  for (std::size_t i = 0; i < ps.size(); ++i) ranges.push_back({dst(ps[i]), ps[i].bytes, i});
  const OverlapScan s = scan_overlap(ranges);
  if (!s.duplicates && !s.partial) return;
  const transport::Piece& a = ps[s.a];
  const transport::Piece& b = ps[s.b];
  if (s.partial)
    bad_arg(call, "destination pieces %p (+%zu bytes) and %p (+%zu bytes) overlap (process %d is %s)",
            reinterpret_cast<void*>(dst(a)), a.bytes, reinterpret_cast<void*>(dst(b)), b.bytes, proc,
            dir == Dir::Put ? "the target" : "the source");
  if (r.warned_vector_duplicates.load(std::memory_order_relaxed)) return;
  // Identical ranges next to each other in address order: same data?
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    const transport::Piece& x = ps[ranges[i - 1].id];
    const transport::Piece& y = ps[ranges[i].id];
    if (dst(x) != dst(y)) continue;
    const bool same = dir == Dir::Put ? std::memcmp(x.local, y.local, x.bytes) == 0 : x.remote == y.remote;
    if (!same && !r.warned_vector_duplicates.exchange(true)) {
      warn(call, "two pieces write different data to %p (+%zu bytes); which lands last is not "
           "defined (reported once)", reinterpret_cast<void*>(dst(x)), x.bytes);
      return;
    }
  }
}

// A piece that continues the previous one on both sides joins it: a GA
// merge sends thousands of 2 KiB tiles that lie end to end in both buffers,
// which as one piece go as RMA from the caller's memory instead of being
// packed, staged and unpacked (the transports split a piece at segment
// borders and message limits themselves).  After the overlap check, which
// must see duplicates as the caller wrote them.
void coalesce(std::vector<transport::Piece>& ps) {
  std::size_t k = 0;
  for (std::size_t i = 1; i < ps.size(); ++i) {
    transport::Piece& last = ps[k];
    const transport::Piece& q = ps[i];
    if (static_cast<const char*>(last.local) + last.bytes == q.local && last.remote + last.bytes == q.remote)
      last.bytes += q.bytes;
    else
      ps[++k] = q;
  }
  ps.resize(k + 1);
}

int vector_op(const char* call, Dir dir, int optype, void* scale, armci_giov_t* darr, int len,
              int proc, armci_hdl_t* h) {
  Runtime& r = checked_rt(call);
  check_proc(r, call, proc);
  check_giov(call, darr, len);
  if (dir == Dir::Acc)
    for (int i = 0; i < len; ++i) check_acc(call, optype, scale, darr[i].bytes);
  transport::Target at;
  auto& ps = pieces(r, call, darr, len, proc, dir, &at);
  if (ps.empty()) return 0;
  if (dir != Dir::Acc && ps.size() > 1 && r.checks) check_overlap(r, call, dir, proc, ps);
  if (r.profile.on) {
    std::size_t bytes = 0;
    for (const auto& x : ps) bytes += x.bytes;
    profile(r, dir == Dir::Put ? ProfOp::PutV : dir == Dir::Get ? ProfOp::GetV : ProfOp::AccV, proc, bytes);
  }
  coalesce(ps);
  if (dir == Dir::Put) route::put_pieces(r, proc, at, ps, h);
  else if (dir == Dir::Get) route::get_pieces(r, proc, at, ps, h);
  else route::acc_pieces(r, proc, at, optype, scale, ps);
  return 0;
}

}  // namespace

int putv(const char* call, armci_giov_t* darr, int len, int proc, armci_hdl_t* h) {
  return vector_op(call, Dir::Put, 0, nullptr, darr, len, proc, h);
}
int getv(const char* call, armci_giov_t* darr, int len, int proc, armci_hdl_t* h) {
  return vector_op(call, Dir::Get, 0, nullptr, darr, len, proc, h);
}
int accv(const char* call, int optype, void* scale, armci_giov_t* darr, int len, int proc,
         armci_hdl_t* h) {
  return vector_op(call, Dir::Acc, optype, scale, darr, len, proc, h);
}

}  // namespace armci::rma

using namespace armci;

extern "C" {

int PARMCI_PutV(armci_giov_t darr[], int len, int proc) {
  ARMCI_API_TRY
  return rma::putv("ARMCI_PutV", darr, len, proc, nullptr);
  ARMCI_API_CATCH(kErrBadArg)
}
int PARMCI_GetV(armci_giov_t darr[], int len, int proc) {
  ARMCI_API_TRY
  return rma::getv("ARMCI_GetV", darr, len, proc, nullptr);
  ARMCI_API_CATCH(kErrBadArg)
}
int PARMCI_AccV(int optype, void* scale, armci_giov_t darr[], int len, int proc) {
  ARMCI_API_TRY
  return rma::accv("ARMCI_AccV", optype, scale, darr, len, proc, nullptr);
  ARMCI_API_CATCH(kErrBadArg)
}
int PARMCI_NbPutV(armci_giov_t darr[], int len, int proc, armci_hdl_t* h) {
  ARMCI_API_TRY
  return rma::putv("ARMCI_NbPutV", darr, len, proc, h ? h : rma::kImplicit);
  ARMCI_API_CATCH(kErrBadArg)
}
int PARMCI_NbGetV(armci_giov_t darr[], int len, int proc, armci_hdl_t* h) {
  ARMCI_API_TRY
  return rma::getv("ARMCI_NbGetV", darr, len, proc, h ? h : rma::kImplicit);
  ARMCI_API_CATCH(kErrBadArg)
}
int PARMCI_NbAccV(int optype, void* scale, armci_giov_t darr[], int len, int proc, armci_hdl_t* h) {
  ARMCI_API_TRY
  return rma::accv("ARMCI_NbAccV", optype, scale, darr, len, proc, h ? h : rma::kImplicit);
  ARMCI_API_CATCH(kErrBadArg)
}

}  // extern "C"

// Public names (parmci.h explains the scheme).
ARMCI_WEAK_ALIAS(PARMCI_PutV, ARMCI_PutV);
ARMCI_WEAK_ALIAS(PARMCI_GetV, ARMCI_GetV);
ARMCI_WEAK_ALIAS(PARMCI_AccV, ARMCI_AccV);
ARMCI_WEAK_ALIAS(PARMCI_NbPutV, ARMCI_NbPutV);
ARMCI_WEAK_ALIAS(PARMCI_NbGetV, ARMCI_NbGetV);
ARMCI_WEAK_ALIAS(PARMCI_NbAccV, ARMCI_NbAccV);

#include "armci/rma.hpp"
#include "armci/route.hpp"
#include "armci/validate.hpp"
#include "transports/shm_ops.hpp"
#include "armci/profiling.hpp"

namespace armci::rma {

namespace {

// The shape and where its remote range goes (null when empty; good until
// this thread's next check).
struct Checked {
  transport::StridedShape shape;
  const transport::Target* at = nullptr;
};

Checked checked_shape(Runtime& r, const char* call, void* src, int* ss, void* dst, int* ds, int* count,
                      int levels, int proc, bool remote_is_dst, bool accumulate = false) {
  check_proc(r, call, proc);
  check_strided(call, levels, count, ss, ds, !accumulate);
  transport::StridedShape s(levels, count, ss, ds);
  if (s.empty()) return {s};
  if (remote_is_dst) {
    check_local(call, "source", src, s.src_extent());
    return {s, &check_remote(r, call, "destination", proc, dst, s.dst_extent())};
  }
  check_local(call, "destination", dst, s.dst_extent());
  return {s, &check_remote(r, call, "source", proc, src, s.src_extent())};
}

}  // namespace

// Strides of the same shape stored contiguously: running products of counts.
void packed_strides(int levels, const int* count, int* out) {
  long run = count[0];
  for (int i = 0; i < levels; ++i) {
    out[i] = static_cast<int>(run);
    run *= count[i + 1];
  }
}

int local_strided(const char* call, bool read, void* ptr, int levels, int* stride_arr, int* count,
                  char* buf) {
  check_strided(call, levels, count, stride_arr, stride_arr, true);
  int packed[ARMCI_MAX_STRIDE_LEVEL];
  packed_strides(levels, count, packed);
  if (read) transport::shm::put_strided(ptr, buf, transport::StridedShape(levels, count, stride_arr, packed));
  else transport::shm::put_strided(buf, ptr, transport::StridedShape(levels, count, packed, stride_arr));
  return 0;
}

int puts(const char* call, void* src, int* ss, void* dst, int* ds, int* count, int levels, int proc,
         armci_hdl_t* h) {
  Runtime& r = checked_rt(call);
  const Checked c = checked_shape(r, call, src, ss, dst, ds, count, levels, proc, true);
  if (!c.at) return 0;
  profile(r, ProfOp::PutS, proc, c.shape.bytes());
  route::put_strided(r, proc, *c.at, src, dst, c.shape, h);
  return 0;
}

int gets(const char* call, void* src, int* ss, void* dst, int* ds, int* count, int levels, int proc,
         armci_hdl_t* h) {
  Runtime& r = checked_rt(call);
  const Checked c = checked_shape(r, call, src, ss, dst, ds, count, levels, proc, false);
  if (!c.at) return 0;
  profile(r, ProfOp::GetS, proc, c.shape.bytes());
  route::get_strided(r, proc, *c.at, src, dst, c.shape, h);
  return 0;
}

int accs(const char* call, int optype, void* scale, void* src, int* ss, void* dst, int* ds,
         int* count, int levels, int proc, armci_hdl_t* h) {
  (void)h;  // accumulates copy their source: locally complete on return
  Runtime& r = checked_rt(call);
  if (!count) bad_arg(call, "count array is NULL");
  check_acc(call, optype, scale, count[0]);
  const Checked c = checked_shape(r, call, src, ss, dst, ds, count, levels, proc, true, true);
  if (!c.at) return 0;
  profile(r, ProfOp::AccS, proc, c.shape.bytes());
  route::acc_strided(r, proc, *c.at, optype, scale, src, dst, c.shape);
  return 0;
}

}  // namespace armci::rma

using namespace armci;

extern "C" {

int PARMCI_PutS(void* src, int ss[], void* dst, int ds[], int count[], int levels, int proc) {
  ARMCI_API_TRY
  return rma::puts("ARMCI_PutS", src, ss, dst, ds, count, levels, proc, nullptr);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_GetS(void* src, int ss[], void* dst, int ds[], int count[], int levels, int proc) {
  ARMCI_API_TRY
  return rma::gets("ARMCI_GetS", src, ss, dst, ds, count, levels, proc, nullptr);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_AccS(int optype, void* scale, void* src, int ss[], void* dst, int ds[], int count[],
               int levels, int proc) {
  ARMCI_API_TRY
  return rma::accs("ARMCI_AccS", optype, scale, src, ss, dst, ds, count, levels, proc, nullptr);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_NbPutS(void* src, int ss[], void* dst, int ds[], int count[], int levels, int proc,
                 armci_hdl_t* h) {
  ARMCI_API_TRY
  return rma::puts("ARMCI_NbPutS", src, ss, dst, ds, count, levels, proc, h ? h : rma::kImplicit);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_NbGetS(void* src, int ss[], void* dst, int ds[], int count[], int levels, int proc,
                 armci_hdl_t* h) {
  ARMCI_API_TRY
  return rma::gets("ARMCI_NbGetS", src, ss, dst, ds, count, levels, proc, h ? h : rma::kImplicit);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_NbAccS(int optype, void* scale, void* src, int ss[], void* dst, int ds[], int count[],
                 int levels, int proc, armci_hdl_t* h) {
  ARMCI_API_TRY
  return rma::accs("ARMCI_NbAccS", optype, scale, src, ss, dst, ds, count, levels, proc,
                   h ? h : rma::kImplicit);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_PutS_flag(void* src, int ss[], void* dst, int ds[], int count[], int levels, int* flag,
                    int value, int proc) {
  ARMCI_API_TRY
  rma::puts("ARMCI_PutS_flag", src, ss, dst, ds, count, levels, proc, nullptr);
  rma::set_flag("ARMCI_PutS_flag", flag, value, proc);
  return 0;
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_PutS_flag_dir(void* src, int ss[], void* dst, int ds[], int count[], int levels,
                        int* flag, int value, int proc) {
  ARMCI_API_TRY
  rma::puts("ARMCI_PutS_flag_dir", src, ss, dst, ds, count, levels, proc, nullptr);
  rma::set_flag("ARMCI_PutS_flag_dir", flag, value, proc);
  return 0;
  ARMCI_API_CATCH(kErrBadArg)
}

// Local gather/scatter between a strided region and a contiguous buffer.
// void, as GA declares them: a bad argument is reported (and, with
// ARMCI_ERRORS=return, the copy skipped).
void armci_read_strided(void* ptr, int levels, int stride_arr[], int count[], char* buf) {
  ARMCI_API_TRY
  rma::local_strided("armci_read_strided", true, ptr, levels, stride_arr, count, buf);
  ARMCI_API_CATCH_VOID
}

void armci_write_strided(void* ptr, int levels, int stride_arr[], int count[], char* buf) {
  ARMCI_API_TRY
  rma::local_strided("armci_write_strided", false, ptr, levels, stride_arr, count, buf);
  ARMCI_API_CATCH_VOID
}

}  // extern "C"

// Public names (parmci.h explains the scheme).
ARMCI_WEAK_ALIAS(PARMCI_PutS, ARMCI_PutS);
ARMCI_WEAK_ALIAS(PARMCI_GetS, ARMCI_GetS);
ARMCI_WEAK_ALIAS(PARMCI_AccS, ARMCI_AccS);
ARMCI_WEAK_ALIAS(PARMCI_NbPutS, ARMCI_NbPutS);
ARMCI_WEAK_ALIAS(PARMCI_NbGetS, ARMCI_NbGetS);
ARMCI_WEAK_ALIAS(PARMCI_NbAccS, ARMCI_NbAccS);
ARMCI_WEAK_ALIAS(PARMCI_PutS_flag, ARMCI_PutS_flag);
ARMCI_WEAK_ALIAS(PARMCI_PutS_flag_dir, ARMCI_PutS_flag_dir);

#include <cstring>

#include "armci/rma.hpp"
#include "armci/route.hpp"
#include "armci/validate.hpp"
#include "armci/profiling.hpp"

namespace armci::rma {

int put(const char* call, void* src, void* dst, long bytes, int proc, armci_hdl_t* h) {
  Runtime& r = checked_rt(call);
  check_proc(r, call, proc);
  check_count(call, "byte count", bytes);
  if (bytes == 0) return 0;
  const auto n = static_cast<std::size_t>(bytes);
  check_local(call, "source", src, n);
  const transport::Target& at = check_remote(r, call, "destination", proc, dst, n);
  profile(r, ProfOp::Put, proc, n);
  route::put(r, proc, at, src, dst, n, h);
  return 0;
}

int get(const char* call, void* src, void* dst, long bytes, int proc, armci_hdl_t* h) {
  Runtime& r = checked_rt(call);
  check_proc(r, call, proc);
  check_count(call, "byte count", bytes);
  if (bytes == 0) return 0;
  const auto n = static_cast<std::size_t>(bytes);
  check_local(call, "destination", dst, n);
  const transport::Target& at = check_remote(r, call, "source", proc, src, n);
  profile(r, ProfOp::Get, proc, n);
  route::get(r, proc, at, src, dst, n, h);
  return 0;
}

int acc(const char* call, int optype, void* scale, void* src, void* dst, long bytes, int proc,
        armci_hdl_t* h) {
  (void)h;  // accumulates copy their source: locally complete on return
  Runtime& r = checked_rt(call);
  check_proc(r, call, proc);
  check_count(call, "byte count", bytes);
  check_acc(call, optype, scale, bytes);
  if (bytes == 0) return 0;
  const auto n = static_cast<std::size_t>(bytes);
  check_local(call, "source", src, n);
  const transport::Target& at = check_remote(r, call, "destination", proc, dst, n);
  profile(r, ProfOp::Acc, proc, n);
  route::acc(r, proc, at, optype, scale, src, dst, n);
  return 0;
}

void set_flag(const char* call, int* flag, int value, int proc) {
  Runtime& r = rt();
  check_remote(r, call, "flag", proc, flag, sizeof(int));
  transport::Signal s;
  s.flag_op = transport::FlagOp::Store;
  s.flag = reinterpret_cast<uintptr_t>(flag);
  s.flag_val = static_cast<uint32_t>(value);
  s.wake_flag = true;
  s.fenced = true;
  route::signal(r, proc, s);
}

}  // namespace armci::rma

using namespace armci;

extern "C" {

int PARMCI_Put(void* src, void* dst, int bytes, int proc) {
  ARMCI_API_TRY
  return rma::put("ARMCI_Put", src, dst, bytes, proc, nullptr);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Get(void* src, void* dst, int bytes, int proc) {
  ARMCI_API_TRY
  return rma::get("ARMCI_Get", src, dst, bytes, proc, nullptr);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Acc(int optype, void* scale, void* src, void* dst, int bytes, int proc) {
  ARMCI_API_TRY
  return rma::acc("ARMCI_Acc", optype, scale, src, dst, bytes, proc, nullptr);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_NbPut(void* src, void* dst, int bytes, int proc, armci_hdl_t* h) {
  ARMCI_API_TRY
  return rma::put("ARMCI_NbPut", src, dst, bytes, proc, h ? h : rma::kImplicit);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_NbGet(void* src, void* dst, int bytes, int proc, armci_hdl_t* h) {
  ARMCI_API_TRY
  return rma::get("ARMCI_NbGet", src, dst, bytes, proc, h ? h : rma::kImplicit);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_NbAcc(int optype, void* scale, void* src, void* dst, int bytes, int proc, armci_hdl_t* h) {
  ARMCI_API_TRY
  return rma::acc("ARMCI_NbAcc", optype, scale, src, dst, bytes, proc, h ? h : rma::kImplicit);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Put_flag(void* src, void* dst, int bytes, int* flag, int value, int proc) {
  ARMCI_API_TRY
  rma::put("ARMCI_Put_flag", src, dst, bytes, proc, nullptr);
  rma::set_flag("ARMCI_Put_flag", flag, value, proc);
  return 0;
  ARMCI_API_CATCH(kErrBadArg)
}

void PARMCI_Copy(void* src, void* dst, int n) {
  if (n > 0) std::memmove(dst, src, static_cast<std::size_t>(n));
}

#define ARMCI_VALUE_CALLS(Name, T)                                                       \
  int PARMCI_PutValue##Name(T src, void* dst, int proc) {                                \
    ARMCI_API_TRY                                                                        \
    return rma::put("ARMCI_PutValue" #Name, &src, dst, sizeof(T), proc, nullptr);        \
    ARMCI_API_CATCH(kErrBadArg)                                                          \
  }                                                                                      \
  int PARMCI_NbPutValue##Name(T src, void* dst, int proc, armci_hdl_t* h) {              \
    ARMCI_API_TRY                                                                        \
    /* the value lives on this stack frame: complete the put before returning */        \
    (void)h;                                                                             \
    return rma::put("ARMCI_NbPutValue" #Name, &src, dst, sizeof(T), proc, nullptr);      \
    ARMCI_API_CATCH(kErrBadArg)                                                          \
  }                                                                                      \
  T PARMCI_GetValue##Name(void* src, int proc) {                                         \
    T v{};                                                                               \
    ARMCI_API_TRY                                                                        \
    rma::get("ARMCI_GetValue" #Name, src, &v, sizeof(T), proc, nullptr);                 \
    ARMCI_API_CATCH(v)                                                                   \
    return v;                                                                            \
  }                                                                                      \
  ARMCI_WEAK_ALIAS(PARMCI_PutValue##Name, ARMCI_PutValue##Name);                         \
  ARMCI_WEAK_ALIAS(PARMCI_NbPutValue##Name, ARMCI_NbPutValue##Name);                     \
  ARMCI_WEAK_ALIAS(PARMCI_GetValue##Name, ARMCI_GetValue##Name);

ARMCI_VALUE_CALLS(Int, int)
ARMCI_VALUE_CALLS(Long, long)
ARMCI_VALUE_CALLS(Float, float)
ARMCI_VALUE_CALLS(Double, double)

}  // extern "C"

// Public names (parmci.h explains the scheme).
ARMCI_WEAK_ALIAS(PARMCI_Put, ARMCI_Put);
ARMCI_WEAK_ALIAS(PARMCI_Get, ARMCI_Get);
ARMCI_WEAK_ALIAS(PARMCI_Acc, ARMCI_Acc);
ARMCI_WEAK_ALIAS(PARMCI_NbPut, ARMCI_NbPut);
ARMCI_WEAK_ALIAS(PARMCI_NbGet, ARMCI_NbGet);
ARMCI_WEAK_ALIAS(PARMCI_NbAcc, ARMCI_NbAcc);
ARMCI_WEAK_ALIAS(PARMCI_Put_flag, ARMCI_Put_flag);
ARMCI_WEAK_ALIAS(PARMCI_Copy, ARMCI_Copy);

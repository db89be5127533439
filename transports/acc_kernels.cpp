#pragma GCC optimize("O3")
#include "transports/acc_kernels.hpp"

#include <complex>
#include <cstring>
#include <type_traits>

#include "armci/armci.h"
#include "memory/node_control.hpp"

namespace armci::transport {

std::size_t acc_elem_size(int optype) {
  switch (optype) {
    case ARMCI_ACC_INT: return sizeof(int);
    case ARMCI_ACC_LNG: return sizeof(long);
    case ARMCI_ACC_FLT: return sizeof(float);
    case ARMCI_ACC_DBL: return sizeof(double);
    case ARMCI_ACC_CPL: return 2 * sizeof(float);
    case ARMCI_ACC_DCP: return 2 * sizeof(double);
    default: return 0;
  }
}

const char* acc_type_name(int optype) {
  switch (optype) {
    case ARMCI_ACC_INT: return "ARMCI_ACC_INT";
    case ARMCI_ACC_LNG: return "ARMCI_ACC_LNG";
    case ARMCI_ACC_FLT: return "ARMCI_ACC_FLT";
    case ARMCI_ACC_DBL: return "ARMCI_ACC_DBL";
    case ARMCI_ACC_CPL: return "ARMCI_ACC_CPL";
    case ARMCI_ACC_DCP: return "ARMCI_ACC_DCP";
    default: return "unknown";
  }
}

namespace {

template <typename T>
bool is_one(const void* s) {
  T v;
  std::memcpy(&v, s, sizeof v);
  return v == T(1);
}

// Elements may sit at any alignment (user buffers, a remote address that
// arrived in an active message): loads and stores go through memcpy, which
// compiles to plain (vectorisable) moves.  Integer accumulates wrap on
// overflow (two's complement, as every ARMCI has behaved), so they are done
// in the unsigned type: signed overflow would be undefined.
template <typename T, bool = std::is_integral_v<T>>
struct Wrapping { using type = T; };
template <typename T>
struct Wrapping<T, true> { using type = std::make_unsigned_t<T>; };

template <typename T>
T ld(const void* p, std::size_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(p) + i * sizeof(T), sizeof v);
  return v;
}
template <typename T>
void st(void* p, std::size_t i, T v) {
  std::memcpy(static_cast<char*>(p) + i * sizeof(T), &v, sizeof v);
}

template <typename T>
void axpy(const void* scale, const void* src, void* dst, std::size_t n, bool one) {
  using U = typename Wrapping<T>::type;
  const U a = static_cast<U>(ld<T>(scale, 0));
  if (one) {
    for (std::size_t i = 0; i < n; ++i)
      st<T>(dst, i, static_cast<T>(static_cast<U>(ld<T>(dst, i)) + static_cast<U>(ld<T>(src, i))));
  } else {
    for (std::size_t i = 0; i < n; ++i)
      st<T>(dst, i, static_cast<T>(static_cast<U>(ld<T>(dst, i)) + a * static_cast<U>(ld<T>(src, i))));
  }
}

template <typename R>
void caxpy(const void* scale, const void* src, void* dst, std::size_t n, bool one) {
  const R ar = ld<R>(scale, 0), ai = ld<R>(scale, 1);
  if (one) {
    for (std::size_t i = 0; i < 2 * n; ++i) st<R>(dst, i, ld<R>(dst, i) + ld<R>(src, i));
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const R sr = ld<R>(src, 2 * i), si = ld<R>(src, 2 * i + 1);
    st<R>(dst, 2 * i, ld<R>(dst, 2 * i) + ar * sr - ai * si);
    st<R>(dst, 2 * i + 1, ld<R>(dst, 2 * i + 1) + ar * si + ai * sr);
  }
}

}  // namespace

bool acc_scale_is_one(int optype, const void* scale) {
  switch (optype) {
    case ARMCI_ACC_INT: return is_one<int>(scale);
    case ARMCI_ACC_LNG: return is_one<long>(scale);
    case ARMCI_ACC_FLT: return is_one<float>(scale);
    case ARMCI_ACC_DBL: return is_one<double>(scale);
    case ARMCI_ACC_CPL: {
      float re, im;
      std::memcpy(&re, scale, sizeof re);
      std::memcpy(&im, static_cast<const char*>(scale) + sizeof re, sizeof im);
      return re == 1.0f && im == 0.0f;
    }
    case ARMCI_ACC_DCP: {
      double re, im;
      std::memcpy(&re, scale, sizeof re);
      std::memcpy(&im, static_cast<const char*>(scale) + sizeof re, sizeof im);
      return re == 1.0 && im == 0.0;
    }
    default: return false;
  }
}

void acc_apply(int optype, const void* scale, const void* src, void* dst, std::size_t bytes) {
  const std::size_t es = acc_elem_size(optype);
  const std::size_t n = bytes / es;
  const bool one = acc_scale_is_one(optype, scale);
  switch (optype) {
    case ARMCI_ACC_INT: axpy<int>(scale, src, dst, n, one); break;
    case ARMCI_ACC_LNG: axpy<long>(scale, src, dst, n, one); break;
    case ARMCI_ACC_FLT: axpy<float>(scale, src, dst, n, one); break;
    case ARMCI_ACC_DBL: axpy<double>(scale, src, dst, n, one); break;
    case ARMCI_ACC_CPL: caxpy<float>(scale, src, dst, n, one); break;
    case ARMCI_ACC_DCP: caxpy<double>(scale, src, dst, n, one); break;
    default: break;
  }
}

void acc_locked(memory::NodeControl& ctl, uintptr_t heap_base, int optype, const void* scale,
                const void* src, void* dst, std::size_t bytes) {
  const std::size_t es = acc_elem_size(optype);
  const std::size_t stripe = std::size_t{1} << memory::kAccStripeShift;
  auto d = reinterpret_cast<uintptr_t>(dst);
  auto s = static_cast<const char*>(src);
  std::size_t left = bytes;
  while (left) {
    // Every element belongs to the stripe of its first byte, so two
    // accumulates touching one element always take the same lock.
    uintptr_t off = d - heap_base;
    uintptr_t stripe_end = (off | (stripe - 1)) + 1;
    std::size_t n_elems = (stripe_end - off + es - 1) / es;
    std::size_t chunk = std::min(left, n_elems * es);
    auto& m = ctl.acc_locks[(off >> memory::kAccStripeShift) % memory::kAccStripes].m;
    m.lock("ARMCI_Acc");
    acc_apply(optype, scale, s, reinterpret_cast<void*>(d), chunk);
    m.unlock();
    d += chunk;
    s += chunk;
    left -= chunk;
  }
}

}  // namespace armci::transport

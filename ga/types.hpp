// Element types: sizes, ARMCI accumulate codes, names, and a dispatcher that
// runs a generic lambda with the C++ type behind a GA type code.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>

#include "armci.h"
#include "ga/ga.h"

namespace ga {

struct TypeInfo {
  int type;
  std::size_t size;
  int acc_op;  // ARMCI_ACC_* code
  const char* name;
};

// nullptr for a code that is not one of the seven GA types.
const TypeInfo* type_info(int type);

static_assert(sizeof(long long) == sizeof(long), "C_LONGLONG accumulates as ARMCI_ACC_LNG");
static_assert(sizeof(SingleComplex) == sizeof(std::complex<float>));
static_assert(sizeof(DoubleComplex) == sizeof(std::complex<double>));

// f(T{}) with T the element type of `type` (which must be valid).
template <typename F>
decltype(auto) dispatch(int type, F&& f) {
  switch (type) {
    case C_INT:
      return f(int{});
    case C_LONG:
      return f(long{});
    case C_LONGLONG:
      return f(static_cast<long long>(0));
    case C_FLOAT:
      return f(float{});
    case C_DBL:
      return f(double{});
    case C_SCPL:
      return f(std::complex<float>{});
    default:
      return f(std::complex<double>{});
  }
}

template <typename T>
inline constexpr bool is_complex_v = false;
template <typename T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

// x[i] *= s for n elements (s points to one element of the same type).
void scale_elements(int type, void* x, std::int64_t n, const void* s);
// y[i] += x[i]
void add_elements(int type, void* y, const void* x, std::int64_t n);
// x[i] *= k for an integer factor (used by merges: k equal node copies).
void scale_by_count(int type, void* x, std::int64_t n, long k);
// x[i] = v
void fill_elements(int type, void* x, std::int64_t n, const void* v);
// True if every byte of the element at v is zero.
bool is_zero_value(int type, const void* v);

}  // namespace ga

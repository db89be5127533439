#include "ga/types.hpp"

#include <cstring>

namespace ga {

namespace {

constexpr TypeInfo kTypes[] = {
    {C_INT, sizeof(int), ARMCI_ACC_INT, "C_INT"},
    {C_LONG, sizeof(long), ARMCI_ACC_LNG, "C_LONG"},
    {C_LONGLONG, sizeof(long long), ARMCI_ACC_LNG, "C_LONGLONG"},
    {C_FLOAT, sizeof(float), ARMCI_ACC_FLT, "C_FLOAT"},
    {C_DBL, sizeof(double), ARMCI_ACC_DBL, "C_DBL"},
    {C_SCPL, 2 * sizeof(float), ARMCI_ACC_CPL, "C_SCPL"},
    {C_DCPL, 2 * sizeof(double), ARMCI_ACC_DCP, "C_DCPL"},
};

}  // namespace

const TypeInfo* type_info(int type) {
  for (const TypeInfo& t : kTypes)
    if (t.type == type) return &t;
  return nullptr;
}

void scale_elements(int type, void* x, std::int64_t n, const void* s) {
  dispatch(type, [&](auto zero) {
    using T = decltype(zero);
    T f;
    std::memcpy(&f, s, sizeof f);
    T* p = static_cast<T*>(x);
    for (std::int64_t i = 0; i < n; ++i) p[i] *= f;
  });
}

void add_elements(int type, void* y, const void* x, std::int64_t n) {
  dispatch(type, [&](auto zero) {
    using T = decltype(zero);
    T* d = static_cast<T*>(y);
    const T* s = static_cast<const T*>(x);
    for (std::int64_t i = 0; i < n; ++i) d[i] += s[i];
  });
}

void scale_by_count(int type, void* x, std::int64_t n, long k) {
  dispatch(type, [&](auto zero) {
    using T = decltype(zero);
    T* p = static_cast<T*>(x);
    if constexpr (is_complex_v<T>) {
      const typename T::value_type f = static_cast<typename T::value_type>(k);
      for (std::int64_t i = 0; i < n; ++i) p[i] *= f;
    } else {
      const T f = static_cast<T>(k);
      for (std::int64_t i = 0; i < n; ++i) p[i] *= f;
    }
  });
}

void fill_elements(int type, void* x, std::int64_t n, const void* v) {
  dispatch(type, [&](auto zero) {
    using T = decltype(zero);
    T f;
    std::memcpy(&f, v, sizeof f);
    T* p = static_cast<T*>(x);
    for (std::int64_t i = 0; i < n; ++i) p[i] = f;
  });
}

bool is_zero_value(int type, const void* v) {
  const std::size_t n = type_info(type)->size;
  const auto* b = static_cast<const unsigned char*>(v);
  for (std::size_t i = 0; i < n; ++i)
    if (b[i]) return false;
  return true;
}

}  // namespace ga

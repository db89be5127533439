#include "armci/reduce_ops.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "armci/message.h"

namespace armci {

namespace {
// An op is recognised by its prefix (Fortran callers may pad).  A prefix
// that begins a longer one comes after it: "&&" before "&", "||" before "|".
struct OpPrefix {
  std::string_view prefix;
  ReduceOp op;
};
constexpr OpPrefix kOpPrefixes[] = {
    {"+", ReduceOp::Sum},       {"*", ReduceOp::Prod},      {"absmax", ReduceOp::AbsMax},
    {"absmin", ReduceOp::AbsMin}, {"max", ReduceOp::Max},    {"min", ReduceOp::Min},
    {"&&", ReduceOp::LogAnd},   {"land", ReduceOp::LogAnd}, {"||", ReduceOp::LogOr},
    {"lor", ReduceOp::LogOr},   {"&", ReduceOp::BitAnd},    {"band", ReduceOp::BitAnd},
    {"|", ReduceOp::BitOr},     {"bor", ReduceOp::BitOr},   {"or", ReduceOp::BitOr},
};
}  // namespace

bool parse_reduce_op(const char* op, ReduceOp& out) {
  if (!op) return false;
  for (const OpPrefix& p : kOpPrefixes)
    if (op[0] == p.prefix[0] && std::strncmp(op, p.prefix.data(), p.prefix.size()) == 0) {
      out = p.op;
      return true;
    }
  return false;
}

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "+";
    case ReduceOp::Prod: return "*";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    case ReduceOp::AbsMax: return "absmax";
    case ReduceOp::AbsMin: return "absmin";
    case ReduceOp::BitOr: return "or";
    case ReduceOp::BitAnd: return "&";
    case ReduceOp::LogOr: return "||";
    case ReduceOp::LogAnd: return "&&";
  }
  return "?";
}

std::size_t msg_type_size(int type) {
  switch (type) {
    case ARMCI_INT: return sizeof(int);
    case ARMCI_LONG: return sizeof(long);
    case ARMCI_LONG_LONG: return sizeof(long long);
    case ARMCI_FLOAT: return sizeof(float);
    case ARMCI_DOUBLE: return sizeof(double);
    default: return 0;
  }
}

const char* msg_type_name(int type) {
  switch (type) {
    case ARMCI_INT: return "ARMCI_INT";
    case ARMCI_LONG: return "ARMCI_LONG";
    case ARMCI_LONG_LONG: return "ARMCI_LONG_LONG";
    case ARMCI_FLOAT: return "ARMCI_FLOAT";
    case ARMCI_DOUBLE: return "ARMCI_DOUBLE";
    default: return "unknown";
  }
}

bool msg_type_is_integer(int type) {
  return type == ARMCI_INT || type == ARMCI_LONG || type == ARMCI_LONG_LONG;
}

namespace {

template <typename T>
T abs_of(T v) {
  return v < T(0) ? -v : v;
}

template <typename T>
void combine_t(ReduceOp op, T* a, const T* b, std::size_t n) {
  switch (op) {
    case ReduceOp::Sum: for (std::size_t i = 0; i < n; ++i) a[i] += b[i]; break;
    case ReduceOp::Prod: for (std::size_t i = 0; i < n; ++i) a[i] *= b[i]; break;
    case ReduceOp::Max:
    case ReduceOp::AbsMax: for (std::size_t i = 0; i < n; ++i) if (b[i] > a[i]) a[i] = b[i]; break;
    case ReduceOp::Min:
    case ReduceOp::AbsMin: for (std::size_t i = 0; i < n; ++i) if (b[i] < a[i]) a[i] = b[i]; break;
    case ReduceOp::LogOr: for (std::size_t i = 0; i < n; ++i) a[i] = (a[i] != T(0) || b[i] != T(0)) ? T(1) : T(0); break;
    case ReduceOp::LogAnd: for (std::size_t i = 0; i < n; ++i) a[i] = (a[i] != T(0) && b[i] != T(0)) ? T(1) : T(0); break;
    case ReduceOp::BitOr:
    case ReduceOp::BitAnd:
      if constexpr (std::is_integral_v<T>) {
        if (op == ReduceOp::BitOr) for (std::size_t i = 0; i < n; ++i) a[i] |= b[i];
        else for (std::size_t i = 0; i < n; ++i) a[i] &= b[i];
      }
      break;
  }
}

template <typename T>
void prepare_t(ReduceOp op, T* x, std::size_t n) {
  if (op == ReduceOp::AbsMax || op == ReduceOp::AbsMin)
    for (std::size_t i = 0; i < n; ++i) x[i] = abs_of(x[i]);
  // Logical results are 0/1 whatever the team size.
  if (op == ReduceOp::LogOr || op == ReduceOp::LogAnd)
    for (std::size_t i = 0; i < n; ++i) x[i] = x[i] != T(0) ? T(1) : T(0);
}

}  // namespace

void reduce_combine(int type, ReduceOp op, void* inout, const void* in, std::size_t n) {
  switch (type) {
    case ARMCI_INT: combine_t(op, static_cast<int*>(inout), static_cast<const int*>(in), n); break;
    case ARMCI_LONG: combine_t(op, static_cast<long*>(inout), static_cast<const long*>(in), n); break;
    case ARMCI_LONG_LONG: combine_t(op, static_cast<long long*>(inout), static_cast<const long long*>(in), n); break;
    case ARMCI_FLOAT: combine_t(op, static_cast<float*>(inout), static_cast<const float*>(in), n); break;
    case ARMCI_DOUBLE: combine_t(op, static_cast<double*>(inout), static_cast<const double*>(in), n); break;
  }
}

void reduce_prepare(int type, ReduceOp op, void* x, std::size_t n) {
  switch (type) {
    case ARMCI_INT: prepare_t(op, static_cast<int*>(x), n); break;
    case ARMCI_LONG: prepare_t(op, static_cast<long*>(x), n); break;
    case ARMCI_LONG_LONG: prepare_t(op, static_cast<long long*>(x), n); break;
    case ARMCI_FLOAT: prepare_t(op, static_cast<float*>(x), n); break;
    case ARMCI_DOUBLE: prepare_t(op, static_cast<double*>(x), n); break;
  }
}

}  // namespace armci

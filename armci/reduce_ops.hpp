// Reduction operators of armci_msg_*gop: parsing the op string and combining
// arrays of the five message types.
#pragma once
#include <cstddef>

namespace armci {

enum class ReduceOp { Sum, Prod, Max, Min, AbsMax, AbsMin, BitOr, BitAnd, LogOr, LogAnd };

// false if `op` is not a known operator string.
bool parse_reduce_op(const char* op, ReduceOp& out);
const char* reduce_op_name(ReduceOp op);
// Element size of ARMCI_INT/LONG/LONG_LONG/FLOAT/DOUBLE, 0 otherwise.
std::size_t msg_type_size(int type);
const char* msg_type_name(int type);
bool msg_type_is_integer(int type);
// inout[i] = inout[i] (op) in[i]
void reduce_combine(int type, ReduceOp op, void* inout, const void* in, std::size_t n);
// absmax/absmin reduce absolute values: applied to each contribution first.
void reduce_prepare(int type, ReduceOp op, void* x, std::size_t n);

}  // namespace armci

// Collectives over a team, on top of the mailbox.  Trees are binomial and
// two-level (inside each node, then among one leader per node), rooted
// anywhere; allreduce is reduce-then-broadcast so every member ends
// with bit-identical results.
#pragma once
#include <cstddef>

#include "armci/reduce_ops.hpp"
#include "armci/team.hpp"

namespace armci {
class Runtime;
}

namespace armci::coll {

// `call` is the public call on whose behalf the collective runs: every
// message carries it and the collective's number on the team, so members in
// different collectives are told so, naming both calls.
void barrier(Runtime& rt, const Team& t, const char* call);
void bcast(Runtime& rt, const Team& t, int root, void* buf, std::size_t len, const char* call);
void reduce(Runtime& rt, const Team& t, int root, void* buf, std::size_t n, int type, ReduceOp op,
            const char* call);
void allreduce(Runtime& rt, const Team& t, void* buf, std::size_t n, int type, ReduceOp op,
               const char* call);
// all[i*len .. ) receives member i's `len` bytes.
void allgather(Runtime& rt, const Team& t, const void* mine, std::size_t len, void* all, const char* call);

// The members of `t` on my node (SCOPE_NODE) / the first member of `t` on
// each node (SCOPE_MASTERS; I may not be one).
Team node_team(Runtime& rt, const Team& t);
Team masters_team(Runtime& rt, const Team& t);

}  // namespace armci::coll

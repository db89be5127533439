// The router: every ARMCI operation, after its arguments are checked, comes
// here with its target process and leaves through exactly one transport:
// transports/shm.hpp for the caller's node, transports/ofi for the others
// (and for accumulates/Rmw on this node too when the NIC does them natively:
// NIC atomics are not atomic with respect to CPU ones).  Statistics and
// non-blocking completion (armci_hdl_t) are done here, once, for all calls.
#pragma once
#include <cstddef>
#include <cstdint>

#include "armci/armci.h"
#include "armci/runtime.hpp"
#include "transports/shm.hpp"
#include "transports/piece.hpp"
#include "transports/signal.hpp"
#include "transports/strided.hpp"
#include "transports/target.hpp"

namespace armci::route {

// h: nullptr = blocking; kImplicit = non-blocking without handle; else handle.
inline armci_hdl_t* const kImplicit = reinterpret_cast<armci_hdl_t*>(uintptr_t{1});

using transport::Piece;
using transport::Pieces;
using transport::StridedShape;

using transport::Target;

// What ARMCI_Malloc records for proc's block [base, base+len): its node and
// what the transport needs to reach it (transports/target.hpp).
Target resolve(Runtime& r, int proc, const void* base, std::size_t len);

// Data movement: `at` is what check_remote resolved for the remote range.
// Contiguous put/get on this node are the latency-critical case: inline
// (below), a load/store with nothing in between.
inline void put(Runtime& r, int proc, const Target& at, const void* src, void* dst, std::size_t n,
                armci_hdl_t* h);
inline void get(Runtime& r, int proc, const Target& at, const void* src, void* dst, std::size_t n,
                armci_hdl_t* h);
void acc(Runtime& r, int proc, const Target& at, int optype, const void* scale, const void* src, void* dst,
         std::size_t n);
void put_strided(Runtime& r, int proc, const Target& at, const void* src, void* dst, const StridedShape& s,
                 armci_hdl_t* h);
void get_strided(Runtime& r, int proc, const Target& at, const void* src, void* dst, const StridedShape& s,
                 armci_hdl_t* h);
void acc_strided(Runtime& r, int proc, const Target& at, int optype, const void* scale, const void* src,
                 void* dst, const StridedShape& s);
// Pieces: `at` is the first piece's; the others may lie in other allocations.
void put_pieces(Runtime& r, int proc, const Target& at, Pieces p, armci_hdl_t* h);
void get_pieces(Runtime& r, int proc, const Target& at, Pieces p, armci_hdl_t* h);
void acc_pieces(Runtime& r, int proc, const Target& at, int optype, const void* scale, Pieces p);
void rmw(Runtime& r, int proc, const Target& at, int op, void* ploc, void* prem, long extra);
void signal(Runtime& r, int proc, const transport::Signal& s);
// ARMCI mutexes: a TicketLock in proc's memory.
void lock(Runtime& r, int proc, void* lock);
bool trylock(Runtime& r, int proc, void* lock);
void unlock(Runtime& r, int proc, void* lock);

// Remote completion of earlier operations to proc / to everyone.
void fence(Runtime& r, int proc);
void fence_all(Runtime& r);
// Local completion: one handle, one process's implicit operations, all.
void wait(Runtime& r, armci_hdl_t* h);
bool test(Runtime& r, armci_hdl_t* h);  // true: complete
void wait_proc(Runtime& r, int proc);
void wait_all(Runtime& r);
void progress(Runtime& r);
// Sends every batch of coalesced operations now (no wait): before a
// collective, whose messages may reach other processes before a batch would.
void flush(Runtime& r);

// Registration keys of a new node allocation, from ARMCI_Malloc's exchange:
// only the inter-node transport needs them.
void learn_segment(Runtime& r, int node, uint32_t index, uint64_t off, uint64_t size, const uint64_t* keys);  // keys[kMaxNics]
std::size_t key_table_entries(Runtime& r);

namespace detail {
void put_other_node(Runtime& r, const Target& at, const void* src, void* dst, std::size_t n, armci_hdl_t* h);
void get_other_node(Runtime& r, const Target& at, const void* src, void* dst, std::size_t n, armci_hdl_t* h);
}  // namespace detail

inline void put(Runtime& r, int proc, const Target& at, const void* src, void* dst, std::size_t n,
                armci_hdl_t* h) {
  if (__builtin_expect(!r.topo.same_node(proc), 0)) return detail::put_other_node(r, at, src, dst, n, h);
  r.shm->put(at, src, reinterpret_cast<uintptr_t>(dst), n, nullptr);
  ++r.stats.local_ops;
}

inline void get(Runtime& r, int proc, const Target& at, const void* src, void* dst, std::size_t n,
                armci_hdl_t* h) {
  if (__builtin_expect(!r.topo.same_node(proc), 0)) return detail::get_other_node(r, at, src, dst, n, h);
  r.shm->get(at, reinterpret_cast<uintptr_t>(src), dst, n, nullptr);
  ++r.stats.local_ops;
}

}  // namespace armci::route

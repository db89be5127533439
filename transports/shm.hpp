// The shared-memory transport: the target's memory is mapped here at the
// same address, so every operation is a load/store that is complete on
// return (remote completion included); a fence is a memory barrier and
// progress has nothing to do.  Accumulates take the node's stripe locks, so
// they are atomic with the node agent's (see transports/acc_kernels.hpp).
#pragma once
#include <atomic>
#include <vector>

#include "memory/node_heap.hpp"
#include "transports/contract.hpp"
#include "transports/shm_ops.hpp"
#include "transports/ticket_lock.hpp"

namespace armci::transport {

class Shm {
 public:
  explicit Shm(memory::NodeHeap& heap) : heap_(heap) {}

  void put(const Target&, const void* src, uintptr_t dst, std::size_t n, Request*) { shm::put(src, at(dst), n); }
  void get(const Target&, uintptr_t src, void* dst, std::size_t n, Request*) { shm::get(at(src), dst, n); }
  void put_strided(const Target&, const void* src, uintptr_t dst, const StridedShape& s, Request*) {
    shm::put_strided(src, at(dst), s);
  }
  void get_strided(const Target&, uintptr_t src, void* dst, const StridedShape& s, Request*) {
    shm::put_strided(at(src), dst, s);  // a copy either way
  }
  void acc(const Target&, int op, const void* scale, const void* src, uintptr_t dst, std::size_t n) {
    shm::acc(heap_.ctl(), heap_.base(), op, scale, src, at(dst), n);
  }
  void acc_strided(const Target&, int op, const void* scale, const void* src, uintptr_t dst, const StridedShape& s) {
    shm::acc_strided(heap_.ctl(), heap_.base(), op, scale, src, at(dst), s);
  }
  void put_pieces(const Target&, Pieces p, Request*) {
    for (const Piece& q : p) shm::put(q.local, at(q.remote), q.bytes);
  }
  void get_pieces(const Target&, Pieces p, Request*) {
    for (const Piece& q : p) shm::get(at(q.remote), const_cast<void*>(q.local), q.bytes);
  }
  void acc_pieces(const Target&, int op, const void* scale, Pieces p) {
    for (const Piece& q : p) shm::acc(heap_.ctl(), heap_.base(), op, scale, q.local, at(q.remote), q.bytes);
  }
  void rmw(const Target&, int op, void* ploc, uintptr_t prem, long extra) { shm::rmw(op, ploc, at(prem), extra); }
  void signal(int, const Signal& s) { apply_signal(s); }

  void lock(int, uintptr_t addr) {
    TicketLock& l = *static_cast<TicketLock*>(at(addr));
    const uint32_t t = ticket_take(l);
    wait_on_word(&l.serving, [&] { return l.serving.load(std::memory_order_acquire) == t; }, "ARMCI_Lock",
                 "a mutex held by another process");
  }
  bool trylock(int, uintptr_t addr) { return ticket_try(*static_cast<TicketLock*>(at(addr))); }
  // The caller has completed its writes to other nodes (the router fences
  // all transports first); stores on this node are ordered by the release.
  void unlock(int, uintptr_t addr) {
    TicketLock& l = *static_cast<TicketLock*>(at(addr));
    ticket_release(l);
    if (l.remote_waiters.load(std::memory_order_acquire) != 0) heap_.poke_agent();  // the agent queues remote lockers
  }

  void fence(int) { std::atomic_thread_fence(std::memory_order_seq_cst); }
  void fence_all() { std::atomic_thread_fence(std::memory_order_seq_cst); }
  void wait(Request&) {}
  void wait_node(int) {}
  void wait_all() {}
  void progress() {}

 private:
  static void* at(uintptr_t a) { return reinterpret_cast<void*>(a); }
  memory::NodeHeap& heap_;
};

static_assert(Transport<Shm>);

}  // namespace armci::transport

// A fair ticket lock in shared memory (ARMCI mutexes).  Processes of the
// owner's node take tickets directly; the node agent takes them for callers
// on other nodes and answers when their ticket comes up.
#pragma once
#include <atomic>
#include <cstdint>

#include "common/wait.hpp"

namespace armci::transport {

struct TicketLock {
  std::atomic<uint32_t> next{0};
  std::atomic<uint32_t> serving{0};
  std::atomic<uint32_t> remote_waiters{0};  // tickets the agent holds for other nodes
  uint32_t pad = 0;
};

inline uint32_t ticket_take(TicketLock& l) { return l.next.fetch_add(1, std::memory_order_seq_cst); }

// Takes the lock only if nobody holds or waits for it.  Free means
// next == serving; taking ticket `s` succeeds only while next is still `s`,
// and then serving is `s` too (it never passes next), so the caller holds it.
inline bool ticket_try(TicketLock& l) {
  for (;;) {
    uint32_t s = l.serving.load(std::memory_order_acquire);
    uint32_t expect = s;
    if (l.next.compare_exchange_strong(expect, s + 1, std::memory_order_seq_cst)) return true;
    // Busy, unless serving moved on while we looked: then look again.
    if (l.serving.load(std::memory_order_acquire) == s) return false;
  }
}

inline void ticket_release(TicketLock& l) {
  l.serving.fetch_add(1, std::memory_order_seq_cst);
  futex_wake(&l.serving);
}

}  // namespace armci::transport

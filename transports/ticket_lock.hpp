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

inline void ticket_release(TicketLock& l) {
  l.serving.fetch_add(1, std::memory_order_seq_cst);
  futex_wake(&l.serving);
}

}  // namespace armci::transport

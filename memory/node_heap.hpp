// A process's view of its node's heap: the control block, the reservation at
// the node-wide heap address, and the segments mapped so far.  Because every
// process of a node maps the heap at the same address, a heap pointer means
// the same memory in all of them.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "memory/fd_channel.hpp"
#include "memory/node_control.hpp"
#include "memory/shm_file.hpp"

namespace armci::memory {

struct NodeAllocation {
  bool ok = false;
  uint64_t off = 0;   // from the heap base
  std::string error;  // why not, with sizes and limits
};

class NodeHeap {
 public:
  // Connects to the node agent's socket and agrees on the heap address.
  // `agent_control` is the agent's mapping of the control block when the
  // agent runs in this process (else null): one mapping per process, so
  // the agent thread and this process's threads lock the same words.
  NodeHeap(const std::string& agent_socket, uint32_t local_index, NodeControl* agent_control,
           Backing backing);
  ~NodeHeap();
  NodeHeap(const NodeHeap&) = delete;
  NodeHeap& operator=(const NodeHeap&) = delete;

  NodeControl& ctl() const { return *ctl_; }
  uintptr_t base() const { return base_; }
  std::size_t reserved() const { return resv_size_; }
  uintptr_t heap_end() const { return base_ + ctl_->heap_bytes.load(std::memory_order_acquire); }

  // True if [addr, addr+len) is inside the node heap; maps segments published
  // since the last call.  The common case is two compares.
  bool contains(uintptr_t addr, std::size_t len) {
    uintptr_t end = addr + len;
    if (addr >= base_ && end <= mapped_end_.load(std::memory_order_acquire) && end >= addr)
      return true;
    return contains_slow(addr, len);
  }
  int segment_of(uintptr_t addr) const;

  // Node-level allocation (any process of the node may call; serialised by
  // the control block's alloc_lock).  Grows the heap through the agent.
  NodeAllocation allocate(uint64_t len, uint64_t align, const char* call);
  uint64_t release(uint64_t off);  // bytes freed, 0 if `off` starts no allocation
  // Allocates pages of [addr, addr+len) now (fails instead of SIGBUS later).
  int commit(uintptr_t addr, std::size_t len);

  // False if the node agent has gone away (its process died).
  bool agent_alive() const;
  void detach();  // goodbye to the agent (ARMCI_Finalize)
  void poke_agent();  // one-way notice: a lock with remote waiters was released

 private:
  bool contains_slow(uintptr_t addr, std::size_t len);
  void map_published();
  bool rpc(const CtlMsg& req, CtlMsg& rep, int* fd);
  std::string out_of_memory_text(uint64_t len, const char* why) const;

  int sock_ = -1;
  bool in_agent_process_;
  Backing backing_;
  ShmFile control_;
  NodeControl* ctl_ = nullptr;
  std::size_t control_bytes_ = 0;
  Reservation resv_;  // owned here unless the agent (same process) owns it
  uintptr_t base_ = 0;
  std::size_t resv_size_ = 0;
  std::vector<ShmFile> segs_;
  std::atomic<uintptr_t> mapped_end_{0};
  std::mutex mu_;  // rpc and mapping
  bool detached_ = false;
};

}  // namespace armci::memory

// The node heap as served by the node agent (a thread of the node's first
// process): it owns the control block and every segment file, agrees with the
// node's processes on one virtual address for the heap, grows the heap by
// segments, hands segment fds to processes that map them, and notices a
// process of the node that dies without ARMCI_Finalize.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/event_loop.hpp"
#include "memory/fd_channel.hpp"
#include "memory/node_control.hpp"
#include "memory/shm_file.hpp"

namespace armci::memory {

struct HeapConfig {
  Backing backing = Backing::Memfd;
  std::size_t segment_size = 256u << 20;
  std::size_t limit = 0;         // 0: physical memory
  std::size_t reserve = 0;       // address space reserved for the heap
  std::size_t prefix_bytes = 0;  // permanently allocated at the start of segment 0
  uint32_t nlocal = 1;
};

class HeapService {
 public:
  // Called in the agent thread when a segment appears; fills its remote key
  // on each NIC (keys[kMaxNics]).
  using SegmentHook = std::function<void(uint32_t index, void* addr, std::size_t len, uint64_t* keys)>;
  // Called in the agent thread when a process vanishes without saying goodbye.
  using DeathHook = std::function<void(uint32_t local_index, int pid)>;

  HeapService(EventLoop& loop, HeapConfig cfg, DeathHook on_death);
  ~HeapService();
  HeapService(const HeapService&) = delete;
  HeapService& operator=(const HeapService&) = delete;

  const std::string& socket_name() const { return sock_name_; }
  void set_segment_hook(SegmentHook h) { segment_hook_ = std::move(h); }
  void set_poke_hook(std::function<void()> h) { poke_hook_ = std::move(h); }
  NodeControl& control() { return *ctl_; }
  // Agent thread only.
  const ShmFile& segment_file(uint32_t i) const { return segs_[i]; }
  uint32_t segments() const { return static_cast<uint32_t>(segs_.size()); }
  bool all_detached() const;

 private:
  struct Peer {
    int fd = -1;
    int32_t local = -1;
    int pid = 0;
    bool bye = false;
    bool in_agent_process = false;
  };
  void on_accept();
  void on_peer(int fd, uint32_t events);
  void handle(Peer& p, const CtlMsg& m);
  void propose();
  void commit_reservation();
  // A new segment, published in the control block; reply a = its index,
  // b = its size.  Its free range is added to the allocator by whoever holds
  // alloc_lock (the requester), never by the agent under someone else's lock.
  bool grow(uint64_t min_bytes, CtlMsg& reply);

  EventLoop& loop_;
  HeapConfig cfg_;
  DeathHook on_death_;
  SegmentHook segment_hook_;
  std::function<void()> poke_hook_;
  std::string sock_name_;
  int listen_fd_ = -1;
  ShmFile control_file_;
  NodeControl* ctl_ = nullptr;
  std::size_t control_bytes_ = 0;
  Reservation resv_;
  std::vector<ShmFile> segs_;
  std::map<int, Peer> peers_;
  // Reservation agreement
  uint32_t hellos_ = 0;
  uint32_t answers_ = 0;
  uint32_t refusals_ = 0;
  unsigned attempt_ = 0;
  bool committed_ = false;
};

}  // namespace armci::memory

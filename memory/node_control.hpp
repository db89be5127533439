// Layout of the node control block: a small shared-memory file mapped by every
// process of a (virtual) node at any address.  It holds the heap's segment
// table, the allocator's metadata and the node's shared locks.  Offsets only,
// never pointers: each process maps it at a different place.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/shared_sync.hpp"

namespace armci::memory {

inline constexpr uint64_t kControlMagic = 0x41524d43494f4649ull;  // "ARMCIOFI"
inline constexpr uint32_t kControlVersion = 3;
inline constexpr uint32_t kMaxSegments = 1024;
inline constexpr uint32_t kMaxExtents = 16384;
inline constexpr uint32_t kMaxLocalProcs = 1024;
// NICs a node uses at most (ARMCI_NICS beyond it are left out): each heap
// segment has a remote key per NIC.
inline constexpr uint32_t kMaxNics = 8;
inline constexpr uint32_t kAccStripes = 4096;
inline constexpr uint32_t kAccStripeShift = 12;  // 4 KiB of heap per accumulate lock

struct Extent {
  uint64_t off;  // from the reservation base
  uint64_t len;
};

struct SegmentEntry {
  uint64_t off;   // from the reservation base
  uint64_t size;
  uint64_t keys[kMaxNics];  // remote key of its registration on each NIC in use (0 before)
  uint64_t desc;  // reserved for the transport
};

struct AllocatorState {
  uint32_t nfree = 0;
  uint32_t nused = 0;
  uint64_t bytes_used = 0;
  uint64_t allocations = 0;  // lifetime count
  Extent free_[kMaxExtents];  // sorted by off, coalesced within a segment
  Extent used_[kMaxExtents];  // live allocations, sorted by off
};

struct alignas(64) PaddedMutex {
  SharedMutex m;
};

struct LocalProc {
  std::atomic<int32_t> pid;
  std::atomic<int32_t> numa_node;  // where this process's blocks are bound (-1 none)
  std::atomic<uint32_t> attached;
  std::atomic<uint32_t> detached;  // said goodbye at ARMCI_Finalize
};

struct NodeControl {
  uint64_t magic;
  uint32_t version;
  uint32_t nlocal;
  uint64_t resv_base;
  uint64_t resv_size;
  std::atomic<uint64_t> limit;        // heap bytes allowed (segments), 0 = reservation
  std::atomic<uint64_t> heap_bytes;   // sum of segment sizes
  std::atomic<uint32_t> nsegments;    // published with release after the entry is filled
  std::atomic<uint32_t> registrations;  // NIC registrations made for this node's heap
  std::atomic<uint32_t> nics;           // NICs each segment is registered with (its agent's)
  SegmentEntry seg[kMaxSegments];

  SharedMutex alloc_lock;
  SharedBarrier node_barrier;
  LocalProc procs[kMaxLocalProcs];
  PaddedMutex acc_locks[kAccStripes];

  AllocatorState alloc;  // last: large
};

}  // namespace armci::memory

// ARMCI_Malloc_local's memory: blocks of the node heap (so the NIC reaches
// them through their segment's one registration, and other processes of the
// node can read them) that this process keeps between uses.  Global Arrays
// asks for tens of MB of scratch on every GA_Dgemm and frees it at the end;
// committing fresh pages and punching them out again per call cost ms.  Here
// a block is placed (NUMA) and its pages committed once, when it is first
// carved from the heap; freeing returns it to this process's cache, and the
// next request of its size class takes it back without a system call.
//
// Size classes: four per power of two (at most 25% rounding).  Blocks up to
// kSlabMax come from per-class slabs (one heap allocation holds many blocks;
// slabs stay with the process).  Larger blocks are carved one by one and go
// back to the node heap (whose large free ranges give their pages back to the
// system) only when the idle cache exceeds its limit (ARMCI_LOCAL_CACHE).
// Thread safe: one mutex, held for a few list operations.
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace armci::memory {

class NodeHeap;
class Numa;

class LocalPool {
 public:
  static constexpr std::size_t kMinBlock = 64;
  static constexpr std::size_t kSlabMax = 64 * 1024;

  LocalPool(NodeHeap& heap, const Numa& numa, std::size_t cache_limit);
  ~LocalPool();
  LocalPool(const LocalPool&) = delete;
  LocalPool& operator=(const LocalPool&) = delete;

  // nullptr with *error set when the node heap cannot supply the block.
  void* allocate(std::size_t bytes, std::string* error);
  // False if p is not a live block of this pool (nothing changes then).
  bool release(void* p);
  // Bytes of p's block (its class size) if p is a live block, else 0.
  std::size_t block_size(const void* p) const;

  struct Counters {
    uint64_t hits = 0;          // requests served from the cache
    uint64_t carved = 0;        // blocks or slabs taken from the node heap
    uint64_t returned = 0;      // large blocks given back to the node heap
    std::size_t cached_bytes = 0;  // idle large blocks kept
    std::size_t live_blocks = 0;
  };
  Counters counters() const;

  // Size class of a request: index and rounded size (pure, for tests).
  static unsigned class_of(std::size_t bytes);
  static std::size_t class_bytes(unsigned cls);

 private:
  bool carve(std::size_t bytes, uint64_t* off, std::string* error);
  void refill_slab(unsigned cls, std::string* error);
  void drop_idle_locked(std::size_t keep);

  NodeHeap& heap_;
  const Numa& numa_;
  const std::size_t limit_;
  mutable std::mutex mu_;
  std::vector<std::vector<uintptr_t>> free_;  // by class: idle blocks
  std::unordered_map<uintptr_t, unsigned> live_;  // block -> class
  std::vector<uint64_t> slabs_;                   // heap offsets, released at the end
  Counters c_;
};

}  // namespace armci::memory

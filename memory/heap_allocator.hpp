// First-fit extent allocator over the heap's segments; its state lives in the
// node control block so any process of the node may allocate or free (under
// the control block's alloc_lock).  An allocation never spans two segments,
// because each segment is a separate NIC registration.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

#include "memory/node_control.hpp"

namespace armci::memory {

class HeapAllocator {
 public:
  explicit HeapAllocator(NodeControl& ctl) : ctl_(ctl), st_(ctl.alloc) {}

  // Offset of `len` bytes aligned to `align` (a power of two), or nullopt.
  std::optional<uint64_t> allocate(uint64_t len, uint64_t align);
  // Frees the live allocation starting at `off`; returns its length, or 0 if
  // `off` starts no live allocation.  *coalesced receives the free extent the
  // range ended up in.
  uint64_t release(uint64_t off, Extent* coalesced = nullptr);
  // The live allocation containing `off`, if any.
  std::optional<Extent> find_used(uint64_t off) const;
  // Adds the whole of a new segment as free space.
  void add_segment(uint64_t off, uint64_t size);

  uint64_t bytes_free() const;
  uint64_t largest_free() const;
  uint32_t free_extents() const { return st_.nfree; }
  uint32_t live_allocations() const { return st_.nused; }

 private:
  int segment_of(uint64_t off) const;
  void insert_free(Extent e);
  void erase_free(uint32_t i);
  void insert_used(Extent e);
  NodeControl& ctl_;
  AllocatorState& st_;
};

}  // namespace armci::memory

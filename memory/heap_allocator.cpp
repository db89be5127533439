#include "memory/heap_allocator.hpp"

#include <algorithm>
#include <cstring>

#include "common/log.hpp"

namespace armci::memory {

namespace {
uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

template <typename Arr>
uint32_t lower_bound_off(const Arr& arr, uint32_t n, uint64_t off) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (arr[mid].off < off) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
}  // namespace

int HeapAllocator::segment_of(uint64_t off) const {
  uint32_t n = ctl_.nsegments.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i)
    if (off >= ctl_.seg[i].off && off < ctl_.seg[i].off + ctl_.seg[i].size)
      return static_cast<int>(i);
  return -1;
}

void HeapAllocator::erase_free(uint32_t i) {
  std::memmove(&st_.free_[i], &st_.free_[i + 1], (st_.nfree - i - 1) * sizeof(Extent));
  --st_.nfree;
}

void HeapAllocator::insert_free(Extent e) {
  if (e.len == 0) return;
  uint32_t i = lower_bound_off(st_.free_, st_.nfree, e.off);
  // Coalesce with neighbours inside the same segment only.
  int seg = segment_of(e.off);
  if (i > 0) {
    Extent& prev = st_.free_[i - 1];
    if (prev.off + prev.len == e.off && segment_of(prev.off) == seg) {
      prev.len += e.len;
      if (i < st_.nfree && prev.off + prev.len == st_.free_[i].off &&
          segment_of(st_.free_[i].off) == seg) {
        prev.len += st_.free_[i].len;
        erase_free(i);
      }
      return;
    }
  }
  if (i < st_.nfree && e.off + e.len == st_.free_[i].off && segment_of(st_.free_[i].off) == seg) {
    st_.free_[i].off = e.off;
    st_.free_[i].len += e.len;
    return;
  }
  if (st_.nfree == kMaxExtents)
    fatal("ARMCI_Free", "node heap free list is full (%u extents): heap too fragmented", kMaxExtents);
  std::memmove(&st_.free_[i + 1], &st_.free_[i], (st_.nfree - i) * sizeof(Extent));
  st_.free_[i] = e;
  ++st_.nfree;
}

void HeapAllocator::insert_used(Extent e) {
  if (st_.nused == kMaxExtents)
    fatal("ARMCI_Malloc", "too many live allocations on this node (%u)", kMaxExtents);
  uint32_t i = lower_bound_off(st_.used_, st_.nused, e.off);
  std::memmove(&st_.used_[i + 1], &st_.used_[i], (st_.nused - i) * sizeof(Extent));
  st_.used_[i] = e;
  ++st_.nused;
}

std::optional<uint64_t> HeapAllocator::allocate(uint64_t len, uint64_t align) {
  if (len == 0) return std::nullopt;
  for (uint32_t i = 0; i < st_.nfree; ++i) {
    Extent f = st_.free_[i];
    uint64_t start = align_up(f.off, align);
    if (start + len > f.off + f.len) continue;
    // Split: [f.off, start) stays free, [start, start+len) used, tail free.
    uint64_t head = start - f.off;
    uint64_t tail = f.off + f.len - (start + len);
    if (head == 0 && tail == 0) {
      erase_free(i);
    } else if (head == 0) {
      st_.free_[i] = {start + len, tail};
    } else {
      st_.free_[i].len = head;
      if (tail) insert_free({start + len, tail});
    }
    insert_used({start, len});
    st_.bytes_used += len;
    ++st_.allocations;
    return start;
  }
  return std::nullopt;
}

uint64_t HeapAllocator::release(uint64_t off, Extent* coalesced) {
  uint32_t i = lower_bound_off(st_.used_, st_.nused, off);
  if (i == st_.nused || st_.used_[i].off != off) return 0;
  Extent e = st_.used_[i];
  std::memmove(&st_.used_[i], &st_.used_[i + 1], (st_.nused - i - 1) * sizeof(Extent));
  --st_.nused;
  st_.bytes_used -= e.len;
  insert_free(e);
  if (coalesced) {
    uint32_t j = lower_bound_off(st_.free_, st_.nfree, e.off + 1);
    *coalesced = (j > 0) ? st_.free_[j - 1] : e;
  }
  return e.len;
}

std::optional<Extent> HeapAllocator::find_used(uint64_t off) const {
  uint32_t i = lower_bound_off(st_.used_, st_.nused, off + 1);
  if (i == 0) return std::nullopt;
  const Extent& e = st_.used_[i - 1];
  if (off >= e.off && off < e.off + e.len) return e;
  return std::nullopt;
}

void HeapAllocator::add_segment(uint64_t off, uint64_t size) { insert_free({off, size}); }

uint64_t HeapAllocator::bytes_free() const {
  uint64_t s = 0;
  for (uint32_t i = 0; i < st_.nfree; ++i) s += st_.free_[i].len;
  return s;
}

uint64_t HeapAllocator::largest_free() const {
  uint64_t m = 0;
  for (uint32_t i = 0; i < st_.nfree; ++i) m = std::max(m, st_.free_[i].len);
  return m;
}

}  // namespace armci::memory

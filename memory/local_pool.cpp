#include "memory/local_pool.hpp"

#include <algorithm>
#include <cstring>

#include "common/knobs.hpp"
#include "memory/node_heap.hpp"
#include "memory/numa.hpp"

namespace armci::memory {

namespace {
constexpr std::size_t kPage = 4096;
constexpr std::size_t kSlabBytesMin = 64 * 1024;
constexpr std::size_t kSlabBytesMax = 1024 * 1024;
std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }
// Blocks inside a slab start 64-byte aligned (what callers got before).
std::size_t slab_stride(std::size_t cls_bytes) { return round_up(cls_bytes, 64); }
std::size_t slab_bytes(std::size_t cls_bytes) {
  return std::clamp(16 * slab_stride(cls_bytes), kSlabBytesMin, kSlabBytesMax);
}
}  // namespace

unsigned LocalPool::class_of(std::size_t bytes) {
  if (bytes <= kMinBlock) return 0;
  // bytes in (2^k, 2^(k+1)]: four classes of 2^(k-2) each.
  const unsigned k = 63u - static_cast<unsigned>(__builtin_clzll(static_cast<unsigned long long>(bytes - 1)));
  const std::size_t quarter = std::size_t{1} << (k - 2);
  const std::size_t sub = (bytes - (std::size_t{1} << k) + quarter - 1) / quarter;  // 1..4
  return 1 + (k - 6) * 4 + static_cast<unsigned>(sub - 1);
}

std::size_t LocalPool::class_bytes(unsigned cls) {
  if (cls == 0) return kMinBlock;
  const unsigned k = 6 + (cls - 1) / 4;
  const std::size_t sub = (cls - 1) % 4 + 1;
  return (std::size_t{1} << k) + sub * (std::size_t{1} << (k - 2));
}

LocalPool::LocalPool(NodeHeap& heap, const Numa& numa, std::size_t cache_limit)
    : heap_(heap), numa_(numa), limit_(cache_limit) {}

LocalPool::~LocalPool() {
  // Whatever the process still holds goes back to the node's allocator,
  // which other processes of the node keep using.
  for (uint64_t off : slabs_) heap_.release(off);
  for (const auto& [p, cls] : live_)
    if (class_bytes(cls) > kSlabMax) heap_.release(p - heap_.base());
  drop_idle_locked(0);
}

bool LocalPool::carve(std::size_t bytes, uint64_t* off, std::string* error) {
  NodeAllocation a = heap_.allocate(bytes, kPage, "ARMCI_Malloc_local");
  if (!a.ok) {
    if (error) *error = a.error;
    return false;
  }
  void* p = reinterpret_cast<void*>(heap_.base() + a.off);
  numa_.bind(p, bytes);
  if (int rc = heap_.commit(heap_.base() + a.off, bytes)) {
    heap_.release(a.off);
    if (error)
      *error = "cannot allocate the pages of " + format_bytes(bytes) + ": " + std::strerror(rc);
    return false;
  }
  *off = a.off;
  ++c_.carved;
  return true;
}

void LocalPool::refill_slab(unsigned cls, std::string* error) {
  const std::size_t stride = slab_stride(class_bytes(cls));
  const std::size_t bytes = slab_bytes(class_bytes(cls));
  uint64_t off = 0;
  if (!carve(bytes, &off, error)) return;
  slabs_.push_back(off);
  auto& list = free_[cls];
  const uintptr_t base = heap_.base() + off;
  // Reversed, so blocks are handed out in address order.
  for (std::size_t i = bytes / stride; i-- > 0;) list.push_back(base + i * stride);
}

void* LocalPool::allocate(std::size_t bytes, std::string* error) {
  if (bytes == 0) return nullptr;
  const unsigned cls = class_of(bytes);
  const std::size_t cb = class_bytes(cls);
  std::lock_guard<std::mutex> g(mu_);
  if (free_.size() <= cls) free_.resize(cls + 1);
  auto& list = free_[cls];
  if (list.empty()) {
    if (cb <= kSlabMax) {
      refill_slab(cls, error);
      if (list.empty()) return nullptr;
    } else {
      uint64_t off = 0;
      if (!carve(cb, &off, error)) {
        // Idle blocks of other sizes may hold what the heap lacks.
        if (c_.cached_bytes == 0) return nullptr;
        drop_idle_locked(0);
        if (!carve(cb, &off, error)) return nullptr;
      }
      live_[heap_.base() + off] = cls;
      ++c_.live_blocks;
      return reinterpret_cast<void*>(heap_.base() + off);
    }
  } else {
    ++c_.hits;
    if (cb > kSlabMax) c_.cached_bytes -= cb;
  }
  const uintptr_t p = list.back();
  list.pop_back();
  live_[p] = cls;
  ++c_.live_blocks;
  return reinterpret_cast<void*>(p);
}

bool LocalPool::release(void* p) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = live_.find(reinterpret_cast<uintptr_t>(p));
  if (it == live_.end()) return false;
  const unsigned cls = it->second;
  live_.erase(it);
  --c_.live_blocks;
  free_[cls].push_back(reinterpret_cast<uintptr_t>(p));
  const std::size_t cb = class_bytes(cls);
  if (cb > kSlabMax) {
    c_.cached_bytes += cb;
    if (c_.cached_bytes > limit_) drop_idle_locked(limit_);
  }
  return true;
}

// Idle large blocks go back to the node heap until at most `keep` bytes
// stay idle, largest first (they hold the most memory; small scratch stays
// warm).
void LocalPool::drop_idle_locked(std::size_t keep) {
  for (std::size_t i = free_.size(); i-- > 0 && c_.cached_bytes > keep;) {
    const std::size_t cb = class_bytes(static_cast<unsigned>(i));
    if (cb <= kSlabMax) break;
    auto& list = free_[i];
    while (!list.empty() && c_.cached_bytes > keep) {
      heap_.release(list.back() - heap_.base());
      list.pop_back();
      c_.cached_bytes -= cb;
      ++c_.returned;
    }
  }
}

std::size_t LocalPool::block_size(const void* p) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = live_.find(reinterpret_cast<uintptr_t>(p));
  return it == live_.end() ? 0 : class_bytes(it->second);
}

LocalPool::Counters LocalPool::counters() const {
  std::lock_guard<std::mutex> g(mu_);
  return c_;
}

}  // namespace armci::memory

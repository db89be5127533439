// Every live ARMCI_Malloc allocation this process may address, per owning
// process, recorded when the allocation is made.  Checking a remote range is
// one look-up here: a hit in the per-process last-found slot (operations come
// in runs on one array) or one binary search; a range that is not wholly
// inside one live allocation of that process is refused, so a put past the
// end, into a freed block or with another process's address never lands.
// (An empty `hit` of length 0 never matches: checked ranges are non-empty.)
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <vector>

#include "transports/target.hpp"

namespace armci {

struct Allocation {
  uintptr_t base = 0;
  std::size_t len = 0;
  transport::Target target;  // what the router hands the transport
};

class AddressTable {
 public:
  // node_of[p]: p's node, for the unkeyed Target of ARMCI_CHECKS=0.
  void resize(const std::vector<int>& node_of);
  // Under ARMCI_THREAD_MULTIPLE a Malloc/Free on one thread may race with
  // look-ups on others; single-threaded programs skip the lock.
  void set_threaded(bool on) { threaded_ = on; }

  void add(int proc, uintptr_t base, std::size_t len, const transport::Target& target = {});
  void remove(int proc, uintptr_t base);

  // The allocation wholly holding [a, a+len) of proc; false if none.
  bool find(int proc, uintptr_t a, std::size_t len, Allocation* out = nullptr) const {
    const Allocation* x = find_ref(proc, a, len);
    if (x && out) *out = *x;
    return x != nullptr;
  }
  // The same, as a reference valid until this thread's next look-up: the
  // owner's last-found slot (single-threaded) or a per-thread copy, so the
  // hot path copies nothing.  nullptr if none.
  const Allocation* find_ref(int proc, uintptr_t a, std::size_t len) const {
    const PerProc& p = procs_[static_cast<std::size_t>(proc)];
    if (__builtin_expect(!threaded_ && inside(p.hit, a, len), 1)) return &p.hit;
    return find_ref_slow(proc, a, len);
  }
  // Only proc's node, nothing resolved (the transport looks keys up).
  const transport::Target& unkeyed(int proc) const { return procs_[static_cast<std::size_t>(proc)].unkeyed; }
  // For error messages: the live allocation of proc closest to a.
  bool nearest(int proc, uintptr_t a, Allocation* out) const;
  std::size_t live(int proc) const;

 private:
  struct PerProc {
    // The last allocation found, by value: one compare on the hot path.
    // Written only single-threaded (threaded look-ups search, under the
    // reader lock, so no torn pair is ever read).
    mutable Allocation hit;
    std::vector<Allocation> v;  // sorted by base, disjoint
    transport::Target unkeyed;
  };
  bool find_unlocked(int proc, uintptr_t a, std::size_t len, Allocation* out) const {
    const PerProc& p = procs_[static_cast<std::size_t>(proc)];
    if (__builtin_expect(inside(p.hit, a, len), 1)) {
      if (out) *out = p.hit;
      return true;
    }
    return search(p, a, len, out);
  }
  static bool inside(const Allocation& x, uintptr_t a, std::size_t len) {
    // a - base cannot wrap once a >= base; written so that a + len never overflows.
    return a >= x.base && a - x.base <= x.len && len <= x.len - (a - x.base);
  }
  bool search(const PerProc& p, uintptr_t a, std::size_t len, Allocation* out) const;
  const Allocation* find_ref_slow(int proc, uintptr_t a, std::size_t len) const;

  std::unique_ptr<PerProc[]> procs_;
  mutable std::shared_mutex mu_;
  bool threaded_ = false;
};

}  // namespace armci

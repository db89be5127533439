// What this process knows of other nodes' heaps: the heap base and, per
// segment, where it lies and its key on each NIC.  O(nodes x segments x
// NICs), filled from the start-up exchange, from ARMCI_Malloc's exchange
// within the allocating group, and on demand by asking the node's agent.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "memory/node_control.hpp"

namespace armci::transport::ofi {

struct RemoteSegment {
  uint64_t off;   // from the node's heap base
  uint64_t size;
  std::array<uint64_t, memory::kMaxNics> keys;  // its registration's key on each NIC in use
};

class RemoteSegments {
 public:
  void resize(int nodes) { nodes_.resize(static_cast<std::size_t>(nodes)); }
  void set_base(int node, uintptr_t base) { nodes_[static_cast<std::size_t>(node)].base = base; }
  uintptr_t base(int node) const { return nodes_[static_cast<std::size_t>(node)].base; }
  void add(int node, const RemoteSegment& s) {
    auto& v = nodes_[static_cast<std::size_t>(node)].segs;
    auto it = std::lower_bound(v.begin(), v.end(), s.off,
                               [](const RemoteSegment& a, uint64_t off) { return a.off < off; });
    if (it != v.end() && it->off == s.off) *it = s;
    else v.insert(it, s);
  }
  // The segment holding addr, or nullptr.
  const RemoteSegment* find(int node, uintptr_t addr) const {
    const auto& n = nodes_[static_cast<std::size_t>(node)];
    if (addr < n.base) return nullptr;
    uint64_t off = addr - n.base;
    auto it = std::upper_bound(n.segs.begin(), n.segs.end(), off,
                               [](uint64_t o, const RemoteSegment& a) { return o < a.off; });
    if (it == n.segs.begin()) return nullptr;
    --it;
    return off < it->off + it->size ? &*it : nullptr;
  }
  // The lowest segment known of node, or nullptr.
  const RemoteSegment* first(int node) const {
    const auto& v = nodes_[static_cast<std::size_t>(node)].segs;
    return v.empty() ? nullptr : &v.front();
  }
  std::size_t entries() const {
    std::size_t e = 0;
    for (const auto& n : nodes_) e += n.segs.size();
    return e;
  }

 private:
  struct Node {
    uintptr_t base = 0;
    std::vector<RemoteSegment> segs;  // sorted by off
  };
  std::vector<Node> nodes_;
};

}  // namespace armci::transport::ofi

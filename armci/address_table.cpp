#include "armci/address_table.hpp"

#include <algorithm>
#include <mutex>

namespace armci {

void AddressTable::resize(const std::vector<int>& node_of) {
  procs_ = std::make_unique<PerProc[]>(node_of.size());
  for (std::size_t p = 0; p < node_of.size(); ++p) procs_[p].unkeyed.node = node_of[p];
}

void AddressTable::add(int proc, uintptr_t base, std::size_t len, const transport::Target& target) {
  if (len == 0) return;
  std::unique_lock<std::shared_mutex> g(mu_);
  auto& v = procs_[static_cast<std::size_t>(proc)].v;
  auto it = std::lower_bound(v.begin(), v.end(), base,
                             [](const Allocation& x, uintptr_t b) { return x.base < b; });
  v.insert(it, Allocation{base, len, target});
}

void AddressTable::remove(int proc, uintptr_t base) {
  std::unique_lock<std::shared_mutex> g(mu_);
  PerProc& p = procs_[static_cast<std::size_t>(proc)];
  auto it = std::lower_bound(p.v.begin(), p.v.end(), base,
                             [](const Allocation& x, uintptr_t b) { return x.base < b; });
  if (it != p.v.end() && it->base == base) p.v.erase(it);
  p.hit = Allocation{};
}

bool AddressTable::search(const PerProc& p, uintptr_t a, std::size_t len, Allocation* out) const {
  auto it = std::upper_bound(p.v.begin(), p.v.end(), a,
                             [](uintptr_t x, const Allocation& e) { return x < e.base; });
  if (it == p.v.begin()) return false;
  --it;
  if (!inside(*it, a, len)) return false;
  if (!threaded_) p.hit = *it;
  if (out) *out = *it;
  return true;
}

const Allocation* AddressTable::find_ref_slow(int proc, uintptr_t a, std::size_t len) const {
  const PerProc& p = procs_[static_cast<std::size_t>(proc)];
  if (!threaded_) return search(p, a, len, nullptr) ? &p.hit : nullptr;
  thread_local Allocation mine;
  std::shared_lock<std::shared_mutex> g(mu_);
  return find_unlocked(proc, a, len, &mine) ? &mine : nullptr;
}

bool AddressTable::nearest(int proc, uintptr_t a, Allocation* out) const {
  std::shared_lock<std::shared_mutex> g(mu_);
  const auto& v = procs_[static_cast<std::size_t>(proc)].v;
  if (v.empty()) return false;
  auto dist = [a](const Allocation& x) {
    if (a < x.base) return x.base - a;
    return a - x.base < x.len ? uintptr_t{0} : a - (x.base + x.len) + 1;
  };
  *out = *std::min_element(v.begin(), v.end(),
                           [&](const Allocation& x, const Allocation& y) { return dist(x) < dist(y); });
  return true;
}

std::size_t AddressTable::live(int proc) const {
  std::shared_lock<std::shared_mutex> g(mu_);
  return procs_[static_cast<std::size_t>(proc)].v.size();
}

}  // namespace armci

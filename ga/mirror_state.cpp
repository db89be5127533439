#include "ga/mirror_state.hpp"

#include <algorithm>
#include <cstring>

#include "ga/errors.hpp"
#include "message.h"

namespace ga {

namespace {

// Tiles small enough to track partial writes, large enough that a merge
// moves a few KiB per tile, and a bitmap of at most 512 bytes per node.
constexpr int kMaxTiles = 4096;
constexpr std::int64_t kMinTileElems = 256;

int node_leader(const Array& a) {
  return a.mirror->node_members[static_cast<std::size_t>(a.mirror->my_node)][0];
}

}  // namespace

void mark_dirty(Array& a, const Box& box) {
  if (!a.mirrored()) return;
  std::uint64_t* w = a.mirror->dirty;
  a.mirror->tiles.for_each_tile_in(box, [&](int t) {
    const std::uint64_t m = std::uint64_t{1} << (t & 63);
    // Skip the atomic when already set: many puts hit the same tiles.
    if (!(__atomic_load_n(&w[t >> 6], __ATOMIC_RELAXED) & m))
      __atomic_fetch_or(&w[t >> 6], m, __ATOMIC_RELAXED);
  });
}

void mark_all_dirty(Array& a) {
  if (!a.mirrored()) return;
  const int n = a.mirror->tiles.count();
  for (int i = 0; i < a.mirror->words(); ++i) {
    const int left = n - 64 * i;
    const std::uint64_t m = left >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << left) - 1);
    __atomic_fetch_or(&a.mirror->dirty[i], m, __ATOMIC_RELAXED);
  }
}

void reset_states(Array& a, Base b) {
  if (!a.mirrored()) return;
  std::fill(a.mirror->base.begin(), a.mirror->base.end(), b);
  if (a.my_rank == node_leader(a))
    for (int i = 0; i < a.mirror->words(); ++i) __atomic_store_n(&a.mirror->dirty[i], 0, __ATOMIC_RELAXED);
}

std::vector<std::uint64_t> gather_dirty(Array& a) {
  Mirror& m = *a.mirror;
  const int w = m.words();
  std::vector<std::uint64_t> all(static_cast<std::size_t>(m.nnodes() * w), 0);
  std::uint64_t* mine = all.data() + static_cast<std::size_t>(m.my_node * w);
  for (int i = 0; i < w; ++i) mine[i] = __atomic_load_n(&m.dirty[i], __ATOMIC_RELAXED);
  static_assert(sizeof(long) == sizeof(std::uint64_t));
  armci_msg_group_lgop(reinterpret_cast<long*>(all.data()), static_cast<int>(all.size()),
                       const_cast<char*>("|"), &a.armci_group);
  return all;
}

void init_mirror_states(Array& a) {
  Mirror& m = *a.mirror;
  m.tiles.init(a.ndim, a.dims, kMaxTiles, kMinTileElems);
  m.base.assign(static_cast<std::size_t>(m.tiles.count()), Base::Zero);
  const bool leader = a.my_rank == node_leader(a);
  const armci_size_t bytes = leader ? static_cast<armci_size_t>(m.words()) * 8 : 0;
  m.bitmap_ptrs.assign(a.members.size(), nullptr);
  if (ARMCI_Malloc_group(m.bitmap_ptrs.data(), bytes, &a.armci_group) != 0)
    fail("NGA_Create", "no memory for the dirty bitmap of mirrored array '%s'", a.name.c_str());
  m.dirty = static_cast<std::uint64_t*>(m.bitmap_ptrs[static_cast<std::size_t>(node_leader(a))]);
  if (leader) std::memset(m.dirty, 0, static_cast<std::size_t>(bytes));
}

void free_mirror_states(Array& a) {
  Mirror& m = *a.mirror;
  if (!m.scratch_ptrs.empty())
    ARMCI_Free_group(m.scratch_ptrs[static_cast<std::size_t>(a.my_rank)], &a.armci_group);
  ARMCI_Free_group(m.bitmap_ptrs[static_cast<std::size_t>(a.my_rank)], &a.armci_group);
}

}  // namespace ga

#include "ga/array_alloc.hpp"

#include <algorithm>
#include <cstring>

#include "ga/errors.hpp"
#include "ga/mirror_state.hpp"
#include "ga/registry.hpp"
#include "ga/types.hpp"
#include "message.h"

namespace ga {

namespace {

// The irregular description must cut every dimension into increasing starts
// beginning at 0, with at most `nprocs` blocks in all.
void check_irregular(const char* call, const Array& a, int nprocs) {
  long blocks = 1;
  std::size_t k = 0;
  for (int d = 0; d < a.ndim; ++d) {
    const int nb = a.irr_block[static_cast<std::size_t>(d)];
    if (nb < 1 || nb > a.dims[d])
      fail(call, "block[%d] = %d is outside 1..%d (dimension %d of '%s')", d, nb, a.dims[d], d,
           a.name.c_str());
    blocks *= nb;
    for (int i = 0; i < nb; ++i, ++k) {
      const int s = a.irr_map[k];
      const int prev = i ? a.irr_map[k - 1] : -1;
      if ((i == 0 && s != 0) || (i > 0 && (s <= prev || s >= a.dims[d])))
        fail(call,
             "map entry %zu (block %d of dimension %d) = %d: starts must begin at 0 and "
             "increase below %d",
             k, i, d, s, a.dims[d]);
    }
  }
  if (blocks > nprocs)
    fail(call,
         "the irregular distribution of '%s' has %ld blocks, more than the %d processes that "
         "would hold them",
         a.name.c_str(), blocks, nprocs);
}

// Node structure of a mirrored array over group g.
void plan_mirror(Registry& r, Array& a, const Pgroup& g) {
  auto m = std::make_unique<Mirror>();
  for (int w : g.members) m->node_id.push_back(r.node_of[static_cast<std::size_t>(w)]);
  std::sort(m->node_id.begin(), m->node_id.end());
  m->node_id.erase(std::unique(m->node_id.begin(), m->node_id.end()), m->node_id.end());
  m->node_members.resize(m->node_id.size());
  for (int i = 0; i < g.size(); ++i) {
    const int nd = r.node_of[static_cast<std::size_t>(g.world(i))];
    const auto idx = std::lower_bound(m->node_id.begin(), m->node_id.end(), nd) - m->node_id.begin();
    m->node_members[static_cast<std::size_t>(idx)].push_back(i);
    if (nd == r.my_node) m->my_node = static_cast<int>(idx);
  }
  a.mirror = std::move(m);
}

}  // namespace

void group_sync(const Array& a) {
  ARMCI_AllFence();
  armci_msg_group_barrier(const_cast<ARMCI_Group*>(&a.armci_group));
}

// GA_Mask_sync applies to the next collective only: its entry takes both
// flags, so a collective without a closing sync cannot leave one behind.
void sync_begin(const Array& a) {
  Registry& r = *reg_or_null();
  const bool skip = r.skip_first_sync;
  r.skip_first_sync = false;
  r.skip_end_sync = r.skip_last_sync;
  r.skip_last_sync = false;
  if (!skip) group_sync(a);
}

void sync_end(const Array& a) {
  Registry& r = *reg_or_null();
  const bool skip = r.skip_end_sync;
  r.skip_end_sync = false;
  if (!skip) group_sync(a);
}

void unmasked_sync(const Array& a) {
  Registry& r = *reg_or_null();
  r.skip_first_sync = r.skip_last_sync = r.skip_end_sync = false;
  group_sync(a);
}

bool allocate(const char* call, Array& a) {
  Registry& r = reg(call);
  if (a.allocated) fail(call, "array %d ('%s') is already allocated", a.handle, a.name.c_str());
  if (a.ndim < 1 || !type_info(a.type))
    fail(call, "array %d has no type and dimensions yet (GA_Set_data)", a.handle);
  const bool want_mirror = a.pgroup == Groups::kMirror;
  const int gh = want_mirror ? (a.mirror_over ? a.mirror_over : r.groups.default_handle()) : a.pgroup;
  const Pgroup& g = r.groups.member(call, gh);
  a.group = gh;
  a.armci_group = g.armci;
  a.members = g.members;
  a.my_rank = g.me;
  if (want_mirror) {
    a.mirror_over = gh;
    plan_mirror(r, a, g);
    if (a.mirror->nnodes() == 1) a.mirror.reset();  // one node: a plain array, as GA does
  }
  // The processes holding the copy I work on, as group ranks.
  std::vector<int> holders;
  if (a.mirrored()) {
    const Mirror& m = *a.mirror;
    holders = m.node_members[static_cast<std::size_t>(m.my_node)];
    if (!a.irr_block.empty())
      for (const auto& nm : m.node_members) check_irregular(call, a, static_cast<int>(nm.size()));
  } else {
    for (int i = 0; i < g.size(); ++i) holders.push_back(i);
    if (!a.irr_block.empty()) check_irregular(call, a, g.size());
  }
  a.dist = a.irr_block.empty()
               ? Distribution::regular(a.ndim, a.dims, a.chunk.empty() ? nullptr : a.chunk.data(),
                                       static_cast<int>(holders.size()))
               : Distribution::irregular(a.ndim, a.dims, a.irr_block.data(), a.irr_map.data());
  const int nown = a.dist.nowners();
  a.owner_box.assign(static_cast<std::size_t>(nown), Box{});
  a.owner_world.assign(static_cast<std::size_t>(nown), -1);
  for (int j = 0; j < nown; ++j) {
    a.dist.block_of(j, a.owner_box[static_cast<std::size_t>(j)]);
    a.owner_world[static_cast<std::size_t>(j)] = g.world(holders[static_cast<std::size_t>(j)]);
  }
  const auto pos = std::find(holders.begin(), holders.end(), a.my_rank) - holders.begin();
  a.my_owner = pos < nown ? static_cast<int>(pos) : -1;
  const std::int64_t my_bytes = a.my_owner >= 0 ? a.owner_box[static_cast<std::size_t>(a.my_owner)].elems() *
                                                      static_cast<std::int64_t>(a.elem)
                                                : 0;
  a.ptrs.assign(static_cast<std::size_t>(g.size()), nullptr);
  if (ARMCI_Malloc_group(a.ptrs.data(), static_cast<armci_size_t>(my_bytes), &a.armci_group) != 0) {
    a.mirror.reset();
    return false;
  }
  a.owner_base.assign(static_cast<std::size_t>(nown), nullptr);
  for (int j = 0; j < nown; ++j)
    a.owner_base[static_cast<std::size_t>(j)] =
        static_cast<char*>(a.ptrs[static_cast<std::size_t>(holders[static_cast<std::size_t>(j)])]);
  // Fresh arrays hold zeros, so a mirrored array starts with every tile in
  // the agreed "zero" state.
  if (my_bytes)
    std::memset(a.ptrs[static_cast<std::size_t>(a.my_rank)], 0, static_cast<std::size_t>(my_bytes));
  if (a.mirrored()) init_mirror_states(a);
  a.allocated = true;
  group_sync(a);
  return true;
}

// ARMCI_Free_group fences and agrees on the pointers collectively, so no
// process frees before the others' operations on the array are complete.
void destroy(const char* call, Array& a) {
  (void)call;
  if (a.mirrored()) free_mirror_states(a);
  ARMCI_Free_group(a.ptrs[static_cast<std::size_t>(a.my_rank)], &a.armci_group);
  a.allocated = false;
}

}  // namespace ga

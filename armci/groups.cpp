#include "armci/groups.hpp"

#include <algorithm>
#include <cstring>

#include "armci/collectives.hpp"
#include "armci/errors.hpp"
#include "armci/runtime.hpp"

namespace armci {

void Groups::init(int nprocs, int me) {
  Entry w;
  w.team.ctx = kCtxWorld;
  w.team.me = me;
  for (int i = 0; i < nprocs; ++i) w.team.members.push_back(i);
  groups_.clear();
  groups_[kWorld] = std::move(w);
  default_ = kWorld;
  default_team_ = &groups_.at(kWorld).team;
}

const Team& Groups::team(ARMCI_Group g, const char* call) const {
  auto it = groups_.find(g);
  if (it == groups_.end()) bad_arg(call, "group handle %d is not a valid (or is a freed) group", g);
  return it->second.team;
}

void Groups::set_default(ARMCI_Group g, const char* call) {
  const Team& t = team(g, call);
  if (!t.member()) bad_arg(call, "this process is not a member of group %d", g);
  default_ = g;
  default_team_ = &t;
}

void* Groups::mpi_comm_slot(ARMCI_Group g) {
  auto it = groups_.find(g);
  return it == groups_.end() ? nullptr : &it->second.mpi_comm;
}

uint32_t Groups::agree_ctx(Runtime& rt, const Team& parent, const char* call) {
  // The largest next-context of all members: unused by any of them so far.
  long c = static_cast<long>(next_ctx_);
  coll::allreduce(rt, parent, &c, 1, ARMCI_LONG_ID, ReduceOp::Max, call);
  next_ctx_ = static_cast<uint32_t>(c) + 4;
  return static_cast<uint32_t>(c);
}

ARMCI_Group Groups::create(Runtime& rt, const Team& parent, int n, const int* list,
                           const char* call) {
  if (!parent.member()) bad_arg(call, "this process is not a member of the parent group");
  if (n < 0) bad_arg(call, "group size %d is negative", n);
  if (n > 0 && !list) bad_arg(call, "member list is NULL for %d members", n);
  Team t;
  for (int i = 0; i < n; ++i) {
    int r = list[i];
    if (r < 0 || r >= parent.size())
      bad_arg(call, "member %d of the list is %d, not a rank of the parent group (0..%d)", i, r,
              parent.size() - 1);
    int w = parent.world(r);
    if (std::find(t.members.begin(), t.members.end(), w) != t.members.end())
      bad_arg(call, "rank %d appears twice in the member list", r);
    if (w == rt.me()) t.me = static_cast<int>(t.members.size());
    t.members.push_back(w);
  }
  // Collective over the parent even for processes outside every new group.
  t.ctx = agree_ctx(rt, parent, call);
  if (t.member() && t.size() > 1) {
    // Every member must have passed the same list.
    std::vector<int> mine = t.members;
    std::vector<int> all(mine.size() * static_cast<std::size_t>(t.size()));
    coll::allgather(rt, t, mine.data(), mine.size() * sizeof(int), all.data(), call);
    for (int m = 0; m < t.size(); ++m)
      if (std::memcmp(all.data() + static_cast<std::size_t>(m) * mine.size(), mine.data(),
                      mine.size() * sizeof(int)) != 0)
        fatal(call, "process %d passed a different member list for the same group", t.world(m));
  }
  ARMCI_Group h = next_handle_++;
  groups_[h].team = std::move(t);
  return h;
}

const Team& Groups::freeable(ARMCI_Group g, const char* call) const {
  if (g == kWorld) bad_arg(call, "the world group cannot be freed");
  return team(g, call);
}

void Groups::free(ARMCI_Group g, const char* call) {
  freeable(g, call);
  auto it = groups_.find(g);
  if (default_ == g) {
    default_ = kWorld;
    default_team_ = &groups_.at(kWorld).team;
  }
  groups_.erase(it);
}

}  // namespace armci

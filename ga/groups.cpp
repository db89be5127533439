#include "ga/groups.hpp"

#include <algorithm>

#include "ga/errors.hpp"
#include "message.h"

namespace ga {

int Pgroup::rank_of(int world_rank) const {
  auto it = std::find(members.begin(), members.end(), world_rank);
  return it == members.end() ? -1 : static_cast<int>(it - members.begin());
}

void Groups::init(int nprocs, int me) {
  Pgroup w;
  w.handle = kWorld;
  ARMCI_Group_get_world(&w.armci);
  for (int i = 0; i < nprocs; ++i) w.members.push_back(i);
  w.me = me;
  groups_.clear();
  groups_[kWorld] = std::move(w);
  default_ = kWorld;
  next_ = 1;
}

const Pgroup& Groups::get(const char* call, int handle) const {
  if (handle == kMirror)
    fail(call,
         "the mirror group (0) is not a process group here; use the world (-1) or a group "
         "made by GA_Pgroup_create");
  auto it = groups_.find(handle);
  if (it == groups_.end())
    fail(call, "processor group %d is not a valid group (never created, or destroyed)", handle);
  return it->second;
}

const Pgroup& Groups::member(const char* call, int handle) const {
  const Pgroup& g = get(call, handle);
  if (!g.member()) fail(call, "this process is not a member of processor group %d", handle);
  return g;
}

void Groups::set_default(const char* call, int handle) {
  const Pgroup& g = member(call, handle);
  ARMCI_Group_set_default(g.armci_ptr());
  default_ = handle;
}

int Groups::create(const char* call, const Pgroup& parent, const std::vector<int>& list) {
  Pgroup g;
  const int me = armci_msg_me();
  for (int r : list) {
    if (r < 0 || r >= parent.size())
      fail(call, "rank %d is not a rank of the parent group (0..%d)", r, parent.size() - 1);
    const int w = parent.world(r);
    if (std::find(g.members.begin(), g.members.end(), w) != g.members.end())
      fail(call, "rank %d appears twice in the list", r);
    if (w == me) g.me = static_cast<int>(g.members.size());
    g.members.push_back(w);
  }
  std::vector<int> l = list;
  ARMCI_Group_create_child(static_cast<int>(l.size()), l.data(), &g.armci, parent.armci_ptr());
  g.handle = next_++;
  const int h = g.handle;
  groups_[h] = std::move(g);
  return h;
}

void Groups::destroy(const char* call, int handle) {
  if (handle == kWorld) fail(call, "the world group (-1) cannot be destroyed");
  const Pgroup& g = get(call, handle);
  if (default_ == handle) fail(call, "group %d is the default group; set another default first", handle);
  ARMCI_Group_free(const_cast<ARMCI_Group*>(&g.armci));
  groups_.erase(handle);
}

void Groups::clear() {
  if (default_ != kWorld) set_default("GA_Terminate", kWorld);
  for (auto it = groups_.begin(); it != groups_.end();) {
    if (it->first == kWorld) {
      ++it;
      continue;
    }
    ARMCI_Group_free(&it->second.armci);
    it = groups_.erase(it);
  }
}

}  // namespace ga

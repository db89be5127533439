// GA processor groups on top of ARMCI groups.  GA handles: the world is -1,
// the mirror group 0, user groups 1, 2, ...  The ARMCI default group always
// follows GA's, so ARMCI_Malloc, ARMCI_Barrier and armci_msg_* agree with it.
#pragma once
#include <map>
#include <vector>

#include "armci.h"

namespace ga {

struct Pgroup {
  int handle = 0;
  ARMCI_Group armci = 0;
  std::vector<int> members;  // world ranks in group-rank order
  int me = -1;               // my group rank, -1 if not a member

  bool member() const { return me >= 0; }
  int size() const { return static_cast<int>(members.size()); }
  int world(int rank) const { return members[static_cast<std::size_t>(rank)]; }
  int rank_of(int world_rank) const;
  // ARMCI calls want a non-const handle pointer.
  ARMCI_Group* armci_ptr() const { return const_cast<ARMCI_Group*>(&armci); }
};

class Groups {
 public:
  static constexpr int kWorld = -1;
  static constexpr int kMirror = 0;

  void init(int nprocs, int me);
  // A real group (world or user), valid; `call` names the caller in errors.
  const Pgroup& get(const char* call, int handle) const;
  // Same, and this process must belong to it.
  const Pgroup& member(const char* call, int handle) const;
  const Pgroup& world() const { return groups_.at(kWorld); }
  const Pgroup& current_default() const { return groups_.at(default_); }
  int default_handle() const { return default_; }
  void set_default(const char* call, int handle);

  // Collective over `parent`'s members: each passes the parent ranks of the
  // group it joins (disjoint lists, or one list shared by all).
  int create(const char* call, const Pgroup& parent, const std::vector<int>& list);
  void destroy(const char* call, int handle);
  // Frees every user group (GA_Terminate).
  void clear();

 private:
  std::map<int, Pgroup> groups_;
  int default_ = kWorld;
  int next_ = 1;
};

}  // namespace ga

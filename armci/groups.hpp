// Processor groups: handles to teams.  The world is handle 0; the default
// group (initially the world) is what Malloc, Barrier and the plain
// armci_msg_* collectives act on.
#pragma once
#include <map>
#include <vector>

#include "armci/armci.h"
#include "armci/team.hpp"

namespace armci {

class Runtime;

class Groups {
 public:
  static constexpr ARMCI_Group kWorld = 0;

  void init(int nprocs, int me);
  // Validates the handle (fatal/returning error naming `call` otherwise).
  const Team& team(ARMCI_Group g, const char* call) const;
  const Team& world() const { return groups_.at(kWorld).team; }
  const Team& default_team() const { return *default_team_; }
  ARMCI_Group default_group() const { return default_; }
  void set_default(ARMCI_Group g, const char* call);

  // Collective over `parent`: every member calls with the list of the group
  // it joins (ranks of `parent`); disjoint lists make disjoint groups.
  ARMCI_Group create(Runtime& rt, const Team& parent, int n, const int* list, const char* call);
  // The team of a group that may be freed: refuses the world and bad
  // handles, so a caller can check before it undoes anything of the group.
  const Team& freeable(ARMCI_Group g, const char* call) const;
  void free(ARMCI_Group g, const char* call);
  // A fresh context agreed over `parent` (collective).
  uint32_t agree_ctx(Runtime& rt, const Team& parent, const char* call);

  // Optional per-group data kept by the MPI interop layer.
  void* mpi_comm_slot(ARMCI_Group g);

 private:
  struct Entry {
    Team team;
    void* mpi_comm = nullptr;  // MPI_Comm* when created
  };
  std::map<ARMCI_Group, Entry> groups_;
  ARMCI_Group default_ = kWorld;
  const Team* default_team_ = nullptr;  // default_'s (map entries stay put): every collective asks
  ARMCI_Group next_handle_ = 1;
  uint32_t next_ctx_ = kCtxWorld + 4;
};

}  // namespace armci

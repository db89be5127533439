// Mutexes: fair ticket locks in the owner's node heap.  Processes of the
// owner's node take tickets with atomics and sleep on the "serving" word;
// other nodes ask the owner node's agent, which takes the ticket for them and
// answers when it comes up.  One MutexSet is the ARMCI_Create_mutexes batch
// (over the world); each ARMCIX_Create_mutexes_hdl makes another, over its
// group, so libraries can own mutexes of their own.
#pragma once
#include <cstdint>
#include <vector>

#include "armci/team.hpp"
#include "transports/ticket_lock.hpp"

namespace armci {

class Runtime;

using transport::TicketLock;

class MutexSet {
 public:
  // Collective over `t`: `num` mutexes on every member (num may differ).
  int create(Runtime& rt, const Team& t, int num, const char* call);
  int destroy(Runtime& rt, const char* call);
  // `proc` is a rank of the set's team (the world rank for ARMCI mutexes).
  void lock(Runtime& rt, int mutex, int proc, const char* call);
  bool trylock(Runtime& rt, int mutex, int proc, const char* call);
  void unlock(Runtime& rt, int mutex, int proc, const char* call);
  bool exist() const { return exists_; }

 private:
  TicketLock* address(int mutex, int proc, const char* call);
  int world_of(int proc) const { return team_.world(proc); }
  Team team_;
  std::vector<void*> tables_;  // by team rank
  std::vector<int> counts_;
  void* mine_ = nullptr;
  bool exists_ = false;
};

}  // namespace armci

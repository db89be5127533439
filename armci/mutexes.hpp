// ARMCI mutexes: fair ticket locks in the owner's node heap.  Processes of
// the owner's node take tickets with atomics and sleep on the "serving" word;
// other nodes ask the owner node's agent, which takes the ticket for them and
// answers when it comes up.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "transports/ticket_lock.hpp"

namespace armci {

class Runtime;

using transport::TicketLock;

class Mutexes {
 public:
  int create(Runtime& rt, int num, const char* call);
  int destroy(Runtime& rt, const char* call);
  void lock(Runtime& rt, int mutex, int proc, const char* call);
  void unlock(Runtime& rt, int mutex, int proc, const char* call);
  bool exist() const { return exists_; }

 private:
  TicketLock* address(Runtime& rt, int mutex, int proc, const char* call);
  std::vector<void*> tables_;  // by world rank
  std::vector<int> counts_;
  void* mine_ = nullptr;
  bool exists_ = false;
};


}  // namespace armci

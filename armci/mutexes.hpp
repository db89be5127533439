// ARMCI mutexes: fair ticket locks in the owner's node heap.  Processes of
// the owner's node take tickets with atomics and sleep on the "serving" word;
// other nodes ask the owner node's agent, which takes the ticket for them and
// answers when it comes up.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

namespace armci {

class Runtime;

struct TicketLock {
  std::atomic<uint32_t> next{0};
  std::atomic<uint32_t> serving{0};
  std::atomic<uint32_t> remote_waiters{0};  // tickets held by the agent for other nodes
  uint32_t pad = 0;
};

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

// Local acquisition/release, also used by the node agent for remote callers.
uint32_t ticket_take(TicketLock& l);
void ticket_release(TicketLock& l);

}  // namespace armci

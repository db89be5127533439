// Non-blocking request handles.  Operations that complete at once (all
// intra-node ones) never take a handle: the user's armci_hdl_t stays 0.
#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "armci/armci.h"

namespace armci {

struct Request {
  // Transport operations not yet locally complete: counted under the
  // transport's lock, read without it by whoever waits.
  std::atomic<uint32_t> pending{0};
  uint32_t gen = 0;
  int node = -1;         // target node of the first operation
  bool in_use = false;
};

class Handles {
 public:
  // The request an operation should count on: the one behind *h (opened if
  // needed), or nullptr for implicit (h == NULL) operations.
  Request* for_handle(armci_hdl_t* h, int node);
  // nullptr if *h names nothing pending (0, stale or complete).
  Request* lookup(armci_hdl_t h);
  void release(armci_hdl_t* h);
  std::size_t open() const { return open_; }
  void set_threaded(bool on) { threaded_ = on; }

 private:
  std::unique_lock<std::mutex> guard() {
    return threaded_ ? std::unique_lock<std::mutex>(mu_) : std::unique_lock<std::mutex>();
  }
  Request* lookup_unlocked(armci_hdl_t h);
  std::mutex mu_;
  bool threaded_ = false;
  std::deque<Request> slots_;  // stable addresses: the transport holds Request*
  std::vector<uint32_t> free_;
  std::size_t open_ = 0;
};

}  // namespace armci

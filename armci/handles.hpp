// Non-blocking request handles.  Operations that complete at once (all
// intra-node ones) never take a handle: the user's armci_hdl_t stays 0.
#pragma once
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "armci/armci.h"
#include "transports/request.hpp"

namespace armci {

using transport::Request;

class Handles {
 public:
  // The request an operation should count on: the one behind *h (opened if
  // needed), or nullptr for implicit (h == NULL) operations.
  Request* for_handle(armci_hdl_t* h);
  // nullptr if *h names nothing pending (0, stale or complete).
  Request* lookup(armci_hdl_t h);
  void release(armci_hdl_t* h);
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
};

}  // namespace armci

// The NICs of one process: an endpoint on each (NIC 0's is the initiator's
// first endpoint, the others are rails), which of them carries this
// process's own traffic (its home: placement), and the split transfers
// still moving on each (striping).  Rails exist only where local buffers
// need no descriptors (no FI_MR_LOCAL); a segment's key is per NIC.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "transports/ofi/fabric.hpp"
#include "transports/ofi/idle_poll.hpp"

namespace armci::transport::ofi {

struct Rails {
  using Clock = std::chrono::steady_clock;
  Endpoint* first = nullptr;                   // NIC 0
  std::vector<std::unique_ptr<Endpoint>> more;  // NIC k is more[k - 1]
  // Active messages, unsplit RMA and atomics leave here; the node agents
  // answer on the NIC a message came in on.  Chosen once, before the first
  // operation (OfiImpl::place).
  std::size_t home = 0;
  std::size_t stripe_from = std::numeric_limits<std::size_t>::max();  // split transfers of this many bytes
  std::vector<uint32_t> pending;   // by NIC: pieces of split transfers not yet complete
  std::vector<Clock::time_point> moved;  // by NIC: its last completed piece (or first outstanding one)

  // A rail's queue holds pieces of split transfers only (the home NIC
  // completes the rest): busy while one is on it.
  IdlePoll idle;
  bool due(std::size_t k) { return idle.due(k >= pending.size() || pending[k]); }

  std::size_t count() const { return more.size() + 1; }
  bool many() const { return !more.empty(); }
  Endpoint& nic(std::size_t k) { return k ? *more[k - 1] : *first; }
  const Endpoint& nic(std::size_t k) const { return k ? *more[k - 1] : *first; }
  Endpoint& own() { return nic(home); }
  const std::string& name(std::size_t k) const { return nic(k).caps.domain; }
  void piece_posted(std::size_t k) {
    if (pending[k]++ == 0) moved[k] = Clock::now();
  }
  void piece_done(std::size_t k) {
    --pending[k];
    moved[k] = Clock::now();
  }
  // The first NIC with pieces outstanding and no completion for `limit`
  // seconds (a link down), or -1; *quiet is how long it has been.
  int stalled(double limit, double* quiet) const {
    const auto now = Clock::now();
    for (std::size_t k = 0; k < pending.size(); ++k) {
      if (!pending[k]) continue;
      *quiet = std::chrono::duration<double>(now - moved[k]).count();
      if (*quiet > limit) return static_cast<int>(k);
    }
    return -1;
  }
};

}  // namespace armci::transport::ofi

// The completion a transport reports into: the number of its operations not
// yet locally complete.  Owned here so transports need nothing from armci/;
// the handle table there hands these out for armci_hdl_t.
#pragma once
#include <atomic>
#include <cstdint>

namespace armci::transport {

struct Request {
  // Counted under the transport's lock, read without it by whoever waits.
  std::atomic<uint32_t> pending{0};
  uint32_t gen = 0;
  bool in_use = false;
  // ARMCI_SET_AGGREGATE_HANDLE: operations on it are coalesced whatever
  // ARMCI_OFI_COALESCE says, up to what one message holds.
  bool aggregate = false;
  // A blocking call's own request: to an idle node it leaves at once rather
  // than open a batch (coalescing pays when more operations follow).
  bool blocking = false;
};

}  // namespace armci::transport

// RMA to other nodes' heaps (initiator_rma.cpp): puts and gets as writes
// and reads on the target node's registration of each segment.
#pragma once
#include <rdma/fabric.h>
#include <rdma/fi_rma.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "transports/piece.hpp"
#include "transports/request.hpp"
#include "transports/target.hpp"

namespace armci::transport {

struct OfiImpl;
struct OpCtx;

// Keys of local-only registrations (FI_MR_LOCAL), above any key a node
// agent gives a segment.
inline constexpr uint64_t kLocalKeyBase = uint64_t{1} << 32;

// Which way an RMA moves data: put (write) or get (read).
enum class Dir : uint8_t { Put, Get };

// What is still moving by RMA to one node: fences and ordering wait on it.
struct RmaCounts {
  uint32_t writes = 0;     // writes not yet delivered (flushed writes: not yet sent)
  uint32_t unflushed = 0;  // writes sent since the last flush read (ARMCI_OFI_WRITE_COMPLETION=flush)
  uint32_t reads = 0;      // reads not yet complete
  bool striped = false;    // a transfer split across NICs may still be in flight
  bool idle() const { return writes == 0 && reads == 0; }
};

// The initiator's RMA, one component: how a transfer becomes posts (inject
// for small writes, one post per contiguous chunk, iovec batches for
// shapes with large pieces, one piece per NIC above the striping
// threshold, packed or staged messages for many small pieces), the
// per-node counts of what is in flight, and the local registrations
// FI_MR_LOCAL providers need.  Ordering, fences and the completion
// dispatcher read the counts; everything else goes through the OfiImpl it
// belongs to, under that OfiImpl's lock.
class RmaChannel {
 public:
  explicit RmaChannel(OfiImpl& core) : core_(core) {}
  RmaChannel(const RmaChannel&) = delete;
  RmaChannel& operator=(const RmaChannel&) = delete;

  void configure(std::size_t nodes, std::size_t inject_limit, std::size_t pack_below) {
    counts_.assign(nodes, RmaCounts{});
    inject_limit_ = inject_limit;
    pack_below_ = pack_below;
  }
  std::size_t inject_limit() const { return inject_limit_; }  // ARMCI_OFI_INJECT or the provider's
  std::size_t pack_below() const { return pack_below_; }      // ARMCI_OFI_PACK_BELOW
  RmaCounts& counts(int node) { return counts_[static_cast<std::size_t>(node)]; }
  const RmaCounts& counts(int node) const { return counts_[static_cast<std::size_t>(node)]; }

  // `local` is the source of a put and the destination of a get.
  void transfer(Dir dir, const Target& at, const void* local, uintptr_t remote_addr, std::size_t n, Request* req);
  // Pieces of a vector or strided transfer: batched, packed or staged.
  void pieces(Dir dir, const Target& at, Pieces p, Request* req);
  // Most pieces one RMA post carries (local and remote iovec limits).
  std::size_t pieces_per_post() const;

  // One post: what it moves and what it counts as.  A write counts in the
  // node's writes (the Stager's for OpKind::StageWrite), a read in its
  // reads; `bytes` go to the statistics.
  struct Post {
    Dir dir;
    int node;
    iovec* iov;             // local side
    void** desc;
    std::size_t count;
    fi_rma_iov* rma;        // remote side
    std::size_t rma_count;  // 0: as many as local
    OpCtx* c;
    uint64_t flags;
    std::size_t bytes;
    uint64_t cq_data = 0;
    int nic = -1;           // -1: the home NIC (rails.home)
  };
  void post(const Post& p);

  // The descriptor of my node's segment holding [p, p+len) where the
  // provider wants local registrations (FI_MR_LOCAL), registered on first
  // use; nullptr where it does not, or if p is in no segment (the caller
  // bounces).
  void* local_desc(const void* p, std::size_t len);

 private:
  void iov_batch(Dir dir, const Target& at, Pieces p, std::size_t first, std::size_t count, Request* req);
  void striped(Dir dir, int node, char* l, uintptr_t remote_addr, uint64_t raddr, std::size_t n, Request* req);

  OfiImpl& core_;
  std::vector<RmaCounts> counts_;  // by node
  std::size_t inject_limit_ = 0;
  std::size_t pack_below_ = 2048;
  std::vector<fid_mr*> local_mrs_;  // FI_MR_LOCAL: my node's segments, by index
};

}  // namespace armci::transport

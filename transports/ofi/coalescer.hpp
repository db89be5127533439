// Coalescing of small operations to other nodes: puts, accumulates and gets
// of at most ARMCI_OFI_COALESCE_MAX bytes to one node are appended to that
// node's open batch instead of each becoming its own provider message (a
// message costs about the same whatever it carries on tcp;ofi_rxm); the
// batch leaves as one Batch active message (ofi/batch_wire.hpp) when
// something needs it to: a wait, test or fence, any other operation to that
// node (so issue order holds), a full batch, or its age passing
// ARMCI_OFI_COALESCE_US.  A put or accumulate is locally complete once
// copied in; a get counts in its request until the reply brings its data.
// Gets too big for a batch's reply but at most ARMCI_OFI_COALESCE_GET_MAX
// wait in the batch too, beside its records, when they find something of
// ours already on its way to that node: the batch then fetches them
// together through the agent's staging slots (one gather, one RMA write
// back) instead of one provider read each.
//
// This file holds the batches themselves (no libfabric): appending,
// limits, and what a sent batch must scatter.  Sending is the initiator's
// (initiator_coalesce.cpp).
#pragma once
#include <cstddef>
#include <atomic>
#include <cstdint>
#include <vector>

#include "transports/ofi/batch_wire.hpp"
#include "transports/request.hpp"
#include "transports/target.hpp"

namespace armci::transport {

struct CoalesceConfig {
  bool on = true;             // ARMCI_OFI_COALESCE
  std::size_t op_max = 2048;  // ARMCI_OFI_COALESCE_MAX: largest operation coalesced
  long delay_us = 1000;       // ARMCI_OFI_COALESCE_US: longest a batch stays open (0: no timer)
  std::size_t get_max = 32768;  // ARMCI_OFI_COALESCE_GET_MAX: largest get staged with its batch
};

// One node's batch under construction.
class Batch {
 public:
  struct Get {
    void* dst;
    std::size_t len;
    Request* req;  // nullptr: an implicit operation of the node
  };

  // A get staged with the batch: no record, the agent gathers it.
  struct Staged {
    Target at;
    uintptr_t remote;
    void* dst;
    std::size_t len;
    Request* req;
  };
  // At most this many bytes of staged gets per batch (then it is sent).
  static constexpr std::size_t kStagedRoom = std::size_t{1} << 20;

  bool empty() const { return count_ == 0 && staged_.empty(); }
  uint32_t count() const { return count_; }
  std::size_t bytes() const { return used_; }
  const char* records() const { return buf_.data(); }
  const std::vector<Get>& gets() const { return gets_; }
  std::size_t get_bytes() const { return get_bytes_; }
  // Every record a get (the agent only reads for this batch).
  bool only_gets() const { return gets_.size() == count_; }
  // Whether a record of `kind` over `len` bytes still fits this message and
  // its reply.
  bool fits(ofi::BatchKind kind, std::size_t len) const {
    return ofi::batch_record_bytes(kind, len) <= ofi::kBatchRoom - used_ &&
           (kind != ofi::BatchKind::Get || len <= ofi::kBatchReplyRoom - get_bytes_);
  }
  // Callers check fits() first.
  void put(uintptr_t remote, const void* src, std::size_t len);
  void acc(int type, const void* scale, std::size_t scale_len, uintptr_t remote, const void* src,
           std::size_t len);
  void get(uintptr_t remote, void* dst, std::size_t len, Request* req);
  void staged_get(const Target& at, uintptr_t remote, void* dst, std::size_t len, Request* req) {
    staged_.push_back({at, remote, dst, len, req});
    staged_bytes_ += len;
  }
  const std::vector<Staged>& staged() const { return staged_; }
  std::size_t staged_bytes() const { return staged_bytes_; }
  // The first record (a batch of one may leave as a plain operation).
  ofi::BatchRecord first() const;
  const char* first_data() const { return buf_.data() + sizeof(ofi::BatchRecord); }
  void clear();
  Target first_target;    // the first record's allocation (a batch of one leaves as plain RMA)

 private:
  char* append(ofi::BatchKind kind, uint16_t type, uintptr_t remote, std::size_t len);
  std::vector<char> buf_;  // kBatchRoom bytes from the first append (most nodes never get one)
  std::size_t used_ = 0;
  uint32_t count_ = 0;
  std::size_t last_ = 0;  // where the last record starts (Batch::put extends it), while count_ > 0
  std::vector<Get> gets_;
  std::size_t get_bytes_ = 0;
  std::vector<Staged> staged_;
  std::size_t staged_bytes_ = 0;
};

// The batches of this process, one per node, and which are open.
class Coalescer {
 public:
  Coalescer(const CoalesceConfig& cfg, int nodes);
  Coalescer(const Coalescer&) = delete;
  Coalescer& operator=(const Coalescer&) = delete;
  const CoalesceConfig& config() const { return cfg_; }
  // Whether an operation of `len` bytes is coalesced at all (aggregate:
  // the caller set ARMCI_SET_AGGREGATE_HANDLE on its handle, which
  // coalesces whatever fits one message, even with coalescing off).
  bool takes(std::size_t len, bool aggregate) const {
    return aggregate ? len <= ofi::kBatchRoom / 2 : cfg_.on && len <= cfg_.op_max;
  }
  Batch& open(int node) { return nodes_[static_cast<std::size_t>(node)].open; }
  // The batch being sent, while `sending`: appends go to open() meanwhile.
  Batch& out(int node) { return nodes_[static_cast<std::size_t>(node)].out; }
  bool& sending(int node) { return nodes_[static_cast<std::size_t>(node)].sending; }
  bool is_open(int node) const { return !nodes_[static_cast<std::size_t>(node)].open.empty(); }
  int nodes() const { return static_cast<int>(nodes_.size()); }
  // Nodes whose batch has been open since before `ns`.
  bool aged(int node, int64_t ns) const {
    const int64_t t = nodes_[static_cast<std::size_t>(node)].since.load(std::memory_order_relaxed);
    return t && t <= ns;
  }
  // How many nodes have an open batch (kept by opened/closed).
  int open_count() const { return open_count_; }
  // Node's open batch got its first record at ns / was taken to be sent.
  void opened(int node, int64_t ns) {
    nodes_[static_cast<std::size_t>(node)].since.store(ns, std::memory_order_relaxed);
    ++open_count_;
  }
  void closed(int node) {
    nodes_[static_cast<std::size_t>(node)].since.store(0, std::memory_order_relaxed);
    --open_count_;
  }
  // When the oldest open batch got its first record (0: none open): safe
  // without the initiator's lock (the coalescing timer asks it so).
  int64_t oldest_open() const;

 private:
  struct PerNode {
    Batch open, out;
    bool sending = false;
    std::atomic<int64_t> since{0};
  };
  CoalesceConfig cfg_;
  std::vector<PerNode> nodes_;
  int open_count_ = 0;
};

}  // namespace armci::transport

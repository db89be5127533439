// The initiator's active-message channel to the node agents: send and
// reply buffers (registered where the provider wants local descriptors),
// and the table of messages waiting for their answer, by token.  At most
// reply_bufs messages are unanswered across all nodes, so every reply has
// a posted receive.  OfiImpl (initiator_am.cpp) drives it; the token table's
// free list and the count of unanswered messages are its own.
#pragma once
#include <rdma/fabric.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "transports/ofi/am_protocol.hpp"
#include "transports/piece.hpp"
#include "transports/request.hpp"

namespace armci::transport {

// An outstanding active message waiting for its reply.
struct PendingAm {
  bool in_use = false;
  bool done = false;
  int node = -1;
  ofi::AmOp op{};
  ofi::ReplyHeader reply{};
  std::vector<Piece> scatter;  // GetPieces, Batch: where the reply's data goes
  std::vector<Request*> scatter_reqs;          // Batch: each piece's request (nullptr: implicit)
  Request* req = nullptr;                      // GetPieces: local completion
  int stage_slot = -1;                         // Staged: the slot the reply frees
  uint32_t retires = 0;                        // Flush: quiet signals its reply answers for
};

// Reply receives a process keeps posted (fewer if the provider's receive
// queue is shorter); it never has more active messages unanswered, across
// all nodes, than it has reply receives posted.
inline constexpr uint32_t kReplyBufs = 64;
inline constexpr int kAmSendBufs = 64;

class AmChannel {
 public:
  std::vector<char> send_mem, recv_mem;  // kAmSendBufs and reply_bufs messages of ofi::kAmMax
  fid_mr* send_mr = nullptr;  // FI_MR_LOCAL only
  fid_mr* recv_mr = nullptr;
  std::vector<int> free_send;
  std::deque<PendingAm> pending;  // by token; stable addresses: waits hold references across pauses
  uint32_t reply_bufs = kReplyBufs;   // reply receives posted
  bool quiet_signals = false;         // the provider keeps one sender's messages in order (FI_ORDER_SAS)

  // Entries made up front (like the operation contexts), so the data path
  // allocates nothing: at most reply_bufs messages are ever unanswered.
  void make_entries(std::size_t scatter_capacity) {
    for (uint32_t t = 0; t < reply_bufs; ++t) {
      PendingAm& p = pending.emplace_back();
      p.scatter.reserve(scatter_capacity);  // a message of more pieces grows its entry once
      p.scatter_reqs.reserve(scatter_capacity);
      free_pending.push_back(reply_bufs - 1 - t);
    }
  }
  // Token table: a fresh entry for a message to node, kept until close().
  uint32_t open(int node, ofi::AmOp op) {
    uint32_t t;
    if (free_pending.empty()) {
      t = static_cast<uint32_t>(pending.size());
      pending.emplace_back();
    } else {
      t = free_pending.back();
      free_pending.pop_back();
    }
    PendingAm& p = pending[t];
    p.done = false;
    p.reply = ofi::ReplyHeader{};
    p.scatter.clear();  // capacity kept: a reused entry allocates nothing
    p.scatter_reqs.clear();
    p.req = nullptr;
    p.stage_slot = -1;
    p.retires = 0;
    p.in_use = true;
    p.node = node;
    p.op = op;
    ++ams_total;
    return t;
  }
  // Its reply arrived: one reply receive fewer is spoken for.
  void answered(PendingAm& p) {
    p.done = true;
    --ams_total;
  }
  void close(uint32_t t) {
    pending[t].in_use = false;
    free_pending.push_back(t);
  }
  bool known(uint32_t t) const { return t < pending.size() && pending[t].in_use; }
  bool waiting(uint64_t t) const { return t < pending.size() && known(static_cast<uint32_t>(t)) && !pending[t].done; }
  bool reply_free() const { return ams_total < reply_bufs; }

  char* send_buf(int i) { return send_mem.data() + static_cast<std::size_t>(i) * ofi::kAmMax; }
  char* recv_buf(int i) { return recv_mem.data() + static_cast<std::size_t>(i) * ofi::kAmMax; }
  bool sends_idle() const { return free_send.size() == kAmSendBufs; }

 private:
  std::vector<uint32_t> free_pending;
  uint32_t ams_total = 0;  // unanswered active messages to all nodes
};

}  // namespace armci::transport

// The initiator's active-message channel to the node agents, one component
// (initiator_am.cpp): send and reply buffers (registered where the provider
// wants local descriptors), the table of messages waiting for their answer
// (by token), each node's window of messages its agent may not have
// consumed, and the calls that send messages, wait for replies and take
// them in.  At most reply_bufs messages are unanswered across all nodes, so
// every reply has a posted receive.  It reaches the endpoint, waiting and
// the rest of the initiator through the OfiImpl it belongs to, and is called
// under that OfiImpl's lock.  The send buffers double as bounce buffers of
// RMA and atomics (take_send_buf).
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

struct OfiImpl;
using ofi::AmHeader;
using ofi::AmOp;
using ofi::ReplyHeader;

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

// One node's share: what its agent has received from me and not yet
// consumed.  Answered messages count until their reply, quiet signals until
// the reply to the Flush that retires them, and one place stays kept for
// that Flush while any are quiet, so the agent's receives (am_budget)
// always suffice.
struct AmWindow {
  uint32_t ams = 0;           // active messages not yet answered
  uint32_t quiet = 0;         // quiet signals sent since the last Flush (ofi::kQuietSignal)
  bool quiet_fenced = false;  // one of them is a Signal::fenced one
  uint32_t window = 1;        // most messages its agent may not have consumed (am_budget)
  uint32_t used() const { return ams + quiet + (quiet ? 1 : 0); }
};

class AmChannel {
 public:
  explicit AmChannel(OfiImpl& core) : core_(core) {}
  AmChannel(const AmChannel&) = delete;
  AmChannel& operator=(const AmChannel&) = delete;

  // ---- sending (initiator_am.cpp)
  // A token for a message to node, once one more fits its window and a
  // reply receive is free for the answer (may let go of the lock).
  uint32_t new_pending(int node, AmOp op);
  // new_pending without waiting for room.
  uint32_t take_token(int node, AmOp op);
  void count_sent(AmOp op);                // ARMCI_Ofi_stats: active_messages, am_<kind>
  // Waits until one more message to node fits its window (flushing quiet
  // signals when they are what fills it) and, unless it is a quiet signal,
  // a reply receive is free for its answer.
  void make_room(int node, bool quiet_signal);
  // Quiet signals to node become one counted Flush (fences and ordering
  // then count it like any answered message).
  void flush_quiet(int node);
  // Counts a quiet signal to node (room made); false if the node's window
  // has no place for one and its Flush: then it goes as a counted message.
  bool quiet_signal(int node, bool fenced);
  // A header-only active message; returns its token.
  uint32_t control(int node, AmOp op, uint16_t type, uint64_t arg0, uint64_t arg1, const char* what);
  // Sends one under an existing token.
  void send_header(int node, uint32_t token, AmOp op, uint16_t type, uint64_t arg0, uint64_t arg1,
                   const char* what);
  // The header of an Acc/PutPieces/GetPieces message from me under token t.
  AmHeader pieces_header(AmOp op, int type, const void* scale, uint32_t t) const;
  // Send buffer `buf` (len bytes) to node's agent.  tracked: never
  // injected, so a completion says when it left (sends_idle()).
  void send(int node, int buf, std::size_t len, const char* what, bool tracked = false);
  int take_send_buf();  // waits for one
  // Pieces packed into active messages, or (at least ARMCI_OFI_STAGE_FROM
  // bytes) moved through the agent's staging slots.
  void pieces(int node, AmOp op, int type, const void* scale, Pieces p, Request* req);
  // One accumulate of q.bytes <= acc_one_max(inject) as an AccOne message
  // (no send completion then); false for a larger one.
  bool acc_one_fits(std::size_t bytes) const;
  bool acc_one(int node, int type, const void* scale, const Piece& q);
  // One message of pieces p from (i, done) on into m (cap bytes): header h,
  // piece table, data; advances (i, done); the pieces taken land in parts.
  // Gets carry no data: their pieces add up to at most reply_cap bytes.
  std::size_t fill_pieces(char* m, std::size_t cap, AmHeader& h, Pieces p, std::size_t& i,
                          std::size_t& done, std::vector<Piece>& parts,
                          std::size_t reply_cap = ofi::kReplyData);

  // ---- replies (initiator_am.cpp)
  void wait_reply(uint32_t token, const char* what);  // fails the job if refused
  void post_reply_recv(int i);
  void on_reply(const char* buf, std::size_t len);
  void on_push(uint64_t data);  // a staged get written back: its CQ data is the token
  void answered(const ReplyHeader& r, const char* data);  // a reply, or a write back standing for one

  // ---- windows
  void set_windows(std::vector<uint32_t> by_node) {
    win_.assign(by_node.size(), AmWindow{});
    for (std::size_t n = 0; n < by_node.size(); ++n) win_[n].window = by_node[n];
  }
  const AmWindow& window(int node) const { return win_[static_cast<std::size_t>(node)]; }
  uint32_t unanswered(int node) const { return window(node).ams; }
  bool full(int node) const { return window(node).ams >= window(node).window; }

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
  AmWindow& win(int node) { return win_[static_cast<std::size_t>(node)]; }
  OfiImpl& core_;
  std::vector<AmWindow> win_;  // by node
  std::vector<uint32_t> free_pending;
  uint32_t ams_total = 0;  // unanswered active messages to all nodes
};

}  // namespace armci::transport

// Staging: transfers that travel through slots the target node's agent
// lends (docs/protocol.md, "Staging").
#pragma once
#include <rdma/fabric.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "transports/ofi/am_protocol.hpp"
#include "transports/piece.hpp"
#include "transports/strided.hpp"

namespace armci::transport {

// What one node's agent lent me (StageQuery's reply): slots, with a bit
// per slot free to fill, their NIC address and their stride; an inbox; the
// key of both.  Each may be lent without the other.
struct StageLease {
  enum State : int8_t { kUnasked = 0, kLent = 1, kNone = -1 };
  State state = kUnasked;  // of the slots
  uint32_t free = 0;    // bit per slot
  uint32_t writes = 0;  // writes into the slots not yet delivered
  uint64_t addr = 0, key = 0;
  std::size_t slot = 0;  // bytes per slot (the agent's stride)
  State box = kUnasked;  // of an inbox at inbox_at (ofi::kInboxBytes): polled messages
  uint64_t inbox_at = 0;
  bool has_free() const { return free != 0; }
  int take() {  // the lowest free slot; has_free() must hold
    const int i = __builtin_ctz(free);
    free &= ~(1u << i);
    return i;
  }
  void give_back(int i) { free |= 1u << i; }
  uint64_t offset(int i) const { return static_cast<uint64_t>(i) * slot; }  // in the agent's slot area
  uint64_t remote(int i) const { return addr + offset(i); }
  // What one staged chunk may hold, with local slots of `own` bytes.
  std::size_t chunk(std::size_t own) const { return std::min(slot, own); }
};

struct OfiImpl;
using ofi::AmOp;

// The initiator's side of staging (initiator_stage.cpp), one component: the
// slots each node's agent lent this process, the local slots staged
// messages are built in before the RMA write that carries them (kStageLocal
// slots of OfiContext::stage_slot bytes, made at first use), and the
// drivers that move a transfer through them.  It reaches the rest of the
// initiator (active messages, RMA posts, waiting) through the OfiImpl it
// belongs to, and is called under that OfiImpl's lock.
class Stager {
 public:
  explicit Stager(OfiImpl& core) : core_(core) {}
  Stager(const Stager&) = delete;
  Stager& operator=(const Stager&) = delete;

  struct Settings {
    std::size_t from = 0;          // ARMCI_OFI_STAGE_FROM (0: never)
    std::size_t pieces_below = 0;  // ARMCI_OFI_STAGE_PIECES_BELOW
    bool cq_data = false;          // staged writes carry their notice (ARMCI_OFI_STAGE_CQ_DATA and the provider)
    bool push = false;             // staged gets are written back (ofi::kStagePush; ARMCI_OFI_STAGE_CQ_DATA)
    bool inbox = false;            // polled messages (ARMCI_OFI_POLLED_AM and the provider)
  };
  void configure(const Settings& s, std::size_t nodes) {
    set_ = s;
    leases_.assign(nodes, StageLease{});
    answers_.assign(nodes, 0);
  }
  const Settings& settings() const { return set_; }
  // Whether pieces averaging avg bytes, total in all, are staged rather
  // than sent as RMA iovec batches (OfiImpl::pieces); asks node's agent for
  // slots the first time.
  bool takes_pieces(int node, std::size_t total, std::size_t avg) {
    return set_.from && total >= set_.from && avg < set_.pieces_below && ready(node);
  }
  // Whether gets to node may wait to be staged together (OfiImpl::coalesce_get).
  bool takes_gets(int node) { return set_.from && ready(node); }

  // Transfers: true if the operation went through the slots (then it is
  // complete as the caller's call requires: puts and accumulates locally,
  // gets on return).  Otherwise nothing was sent.
  bool put_pieces(int node, AmOp op, int type, const void* scale, Pieces p);  // PutPieces or Acc
  bool get_pieces(int node, Pieces p);
  // Strided transfers staged by shape (messages carry a StridedWire, no
  // piece table): op is AccStrided or PutStrided.
  bool put_shape(int node, AmOp op, int type, const void* scale, const void* src, uintptr_t dst,
                 const StridedShape& s);
  bool get_shape(int node, uintptr_t src, void* dst, const StridedShape& s);
  // Send buffer buf (len bytes, an active message whose token is taken)
  // as one write into node's inbox, if the agent lent one, it is the only
  // message of ours unanswered there and no quiet signal is unflushed (the
  // agent then serves it in issue order) and it is a data request
  // (ofi::polled_op); the buffer is then spent.  false: nothing was sent.
  // The answer is a word the agent writes into answers_; a get's data it
  // writes into a free answer area (ofi::kAnswerArea), else it replies.
  bool polled_send(int node, int buf, std::size_t len);
  // Ask node's agent for an inbox unless asked before (it may wait, so
  // before a message's token is taken).  Slots are asked for apart, by the
  // first transfer that would stage, so a sender of small requests only
  // holds none.
  void lend_inbox(int node) {
    if (set_.inbox && lease(node).box == StageLease::kUnasked) ask(node, false);
  }
  // From progress(): answers that arrived; true if any did.
  bool poll_answers() { return !awaiting_.empty() && take_answers(); }
  // From the reply handler: a polled message answered by a message (a
  // refusal, data, or an agent whose send queue was full) is no longer
  // awaited.
  void answered_by_message(int node, uint64_t token) {
    if (awaiting_.empty()) return;
    std::erase_if(awaiting_, [&](const Awaited& a) {
      if (a.node != node || a.token != token) return false;
      if (a.area >= 0) area_free_.push_back(a.area);
      return true;
    });
  }

  // From the completion dispatcher and the reply handler.
  void write_posted(int node) { ++lease(node).writes; }
  void write_done(int node, int local) {
    --lease(node).writes;
    ++local_gen_[static_cast<std::size_t>(local)];
    local_free_.push_back(local);
  }
  void read_done(int local) { ++local_gen_[static_cast<std::size_t>(local)]; }  // its get scatters and frees it
  void answered(int node, int slot) { lease(node).give_back(slot); }
  bool writing(int node) const { return leases_[static_cast<std::size_t>(node)].writes != 0; }

 private:
  struct GetFlight {
    uint32_t token = 0;
    int slot = -1;     // the agent's, -1 once our read of it completed
    int local = -1;    // ours, once the read is posted (a write back: from the request on)
    uint32_t gen = 0;  // the local slot's completed reads before ours
    std::size_t len = 0;
    std::vector<Piece> parts;     // by table: where the chunk goes
    uint64_t first = 0, pieces = 0;  // by shape: which pieces it holds
  };
  struct Chunk {
    std::size_t len;               // bytes built in the local slot
    const void* tail = nullptr;    // then these, from the caller's buffer
    std::size_t tail_len = 0;
  };
  StageLease& lease(int node) { return leases_[static_cast<std::size_t>(node)]; }
  bool ready(int node);  // the node's agent lent slots (asked once)
  void ask(int node, bool slots);
  bool takes_shape(int node, AmOp op, const StridedShape& s);
  char* local_slot(int l);
  template <typename More, typename Fill>
  void out(int node, More&& more, Fill&& fill);
  template <typename More, typename Ask, typename Scatter>
  void in(int node, AmOp op, More&& more, Ask&& request, Scatter&& scatter);

  OfiImpl& core_;
  Settings set_;
  std::vector<StageLease> leases_;  // by node
  std::vector<char> local_;
  fid_mr* local_mr_ = nullptr;
  std::vector<int> local_free_;
  std::vector<uint32_t> local_gen_;  // writes (reads) into each local slot completed so far
  bool take_answers();
  uint64_t answer_remote(int node) const;
  std::vector<uint64_t> answers_;  // by node: where its agent writes a polled message's answer
  fid_mr* answers_mr_ = nullptr;
  struct Awaited {
    int node;
    uint32_t token;
    AmOp op;
    int area;  // where the agent writes a get's data (ofi::kAnswerArea), -1 none
  };
  std::vector<Awaited> awaiting_;  // polled messages not yet answered (one per node at most)
  // Answer areas of ofi::kAmMax bytes for polled gets, registered once
  // with answers_'s first query; a get finding none free is answered by
  // message.
  static constexpr int kAnswerAreas = 4;
  std::vector<char> areas_;
  fid_mr* areas_mr_ = nullptr;
  std::vector<int> area_free_;
  uint64_t area_remote(int a) const;
  char* area_end(int a) { return areas_.data() + static_cast<std::size_t>(a + 1) * ofi::kAmMax; }
};

}  // namespace armci::transport

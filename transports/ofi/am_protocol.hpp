// Wire format of the active messages a process sends to another node's agent,
// and of the agent's replies.  Both ends are the same build of armci-ofi.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>

namespace armci::transport::ofi {

// Largest message either way.  Small enough to stay under the eager limit of
// the message protocols (rxm: 16 KiB of payload), so a send completes
// without the receiver's help and never waits for a peer that is asleep.
// Over tcp the cost per message, not per byte, bounds accumulate bandwidth,
// so a message is as large as the eager limit allows.
inline constexpr std::size_t kAmMax = 16 * 1024 - 256;

// Flow control: every message meets a receive its target has posted, so no
// provider ever buffers one as unexpected (the sockets provider stalls for
// good once its unexpected-message buffer fills).  An agent posts one
// receive per message its senders may have in flight; a sender keeps at most
// `window` messages unanswered per node.  Both ends derive the numbers from
// the same inputs: the number of processes outside the agent's node and the
// provider's receive queue depth (the same for every process that runs with
// the same FI_* settings).  Up to (cap - slack) senders per node the
// guarantee holds; past that every sender keeps a window of one and the
// provider's own flow control (rxm's) has to absorb the rest.
inline constexpr std::size_t kAgentRecvCap = 1024;  // 16 MiB of receive buffers
inline constexpr std::size_t kAgentSlack = 16;   // receives nobody's window may use
inline constexpr uint32_t kWindowMax = 24;       // 24 x ~16 KiB in flight per node
struct AmBudget {
  std::size_t agent_recvs;  // receives the agent keeps posted
  uint32_t window;          // unanswered messages one sender may have to it
};
inline AmBudget am_budget(std::size_t rx_queue, int senders) {
  const std::size_t cap = rx_queue == 0 || rx_queue > kAgentRecvCap ? kAgentRecvCap : rx_queue;
  const std::size_t n = senders > 0 ? static_cast<std::size_t>(senders) : 1;
  std::size_t recvs = n * kWindowMax + kAgentSlack;
  if (recvs > cap) recvs = cap;
  if (recvs < 64 && cap >= 64) recvs = 64;
  std::size_t w = recvs > kAgentSlack ? (recvs - kAgentSlack) / n : 1;
  if (w < 1) w = 1;  // beyond this many senders the provider's own flow control takes over
  if (w > kWindowMax) w = kWindowMax;
  return {recvs, static_cast<uint32_t>(w)};
}

// Staging (ARMCI_OFI_STAGE_*): large accumulates and packed puts are written
// by RMA into slots the target node's agent lends each sender, then a small
// Staged notice has the agent apply them: the bytes travel at RMA bandwidth
// instead of one eager message per 16 KiB.  Two slots per sender: one is
// filled while the agent applies the other.
inline constexpr uint32_t kStageSlots = 2;
inline constexpr uint32_t kStageLocal = 2;  // local slots a process builds messages in and agents write gets back to
// A slot is ARMCI_OFI_STAGE_SLOT bytes of data plus this much room for the
// message's header and shape: a 1 MiB transfer of small rows then fills
// four 256 KiB slots, not four and a few rows in a fifth (one more write,
// notice and reply round trip at the end of every such transfer).
inline constexpr std::size_t kStageHead = 4096;

// Polled messages (ARMCI_OFI_POLLED_AM): an active message to a node where
// none of its sender's is unanswered (AccOne, Acc, PutPieces, GetPieces,
// Batch: polled_op) is one RMA write of the message into an inbox the agent
// lends its sender (apart from staging slots), and the agent answers with
// an injected write of one word into the sender's memory (a get's data: an
// RMA write into an answer area the request names, kAnswerArea).  Neither
// side handles an incoming message: over tcp a message costs the receiver a completion and a
// wait-object signal (a write and a read on a socket pair), an RMA write
// that lands in the receiver's own progress call costs nothing there.  A
// write too big to inject (under tcp;ofi_rxm all of them: a header is 56
// bytes) asks for inject completion: tcp acknowledges a transmit- or
// delivery-complete write from the target, a round trip the answer makes
// redundant (docs/protocol.md).  The message ends where the inbox ends,
// followed by its notice word, so a notice that is there says the bytes
// before it are too (tcp copies a write in stream order, in the thread that
// polls).  Only where that holds: providers built on tcp, one NIC.
inline constexpr std::size_t kInboxRoom = 16384;  // an inbox's stride in the agent's area (page aligned)
inline constexpr std::size_t kInboxBytes = kAmMax;  // a message, then its notice: any send buffer's
inline constexpr std::size_t kInboxMax = kInboxBytes - 8;  // message bytes
inline constexpr uint16_t kStageQueryInbox = 1;    // StageQuery type bit: lend an inbox; arg0, arg1: my answer word
inline constexpr uint16_t kStageQueryNoSlots = 2;  // StageQuery type bit: lend no slots
inline constexpr uint64_t kInboxGranted = 1u << 8;  // in StageQuery's reply value, beside the slot count; d: where
// The valid bit is in the notice's last byte (little-endian): a word that
// has it has landed whole.
inline constexpr uint64_t kInboxValid = uint64_t{1} << 63;
static_assert(std::endian::native == std::endian::little);
inline uint64_t inbox_notice(uint16_t op, std::size_t len, uint32_t token) {
  return kInboxValid | uint64_t{op & 0x7fffu} << 48 | uint64_t{len & 0xffffu} << 32 | token;
}
struct InboxNotice {
  uint16_t op;
  std::size_t len;
  uint32_t token;
};
inline InboxNotice inbox_notice_of(uint64_t w) {
  return {static_cast<uint16_t>(w >> 48 & 0x7fffu), static_cast<std::size_t>(w >> 32 & 0xffffu),
          static_cast<uint32_t>(w)};
}
inline uint64_t inbox_answer(uint32_t token) { return kInboxValid | token; }
// A polled GetPieces or Batch of this type asks for its data by RMA: the
// agent writes it into the sender's area arg0 (key arg1) of kAmMax bytes so
// that it ends, followed by inbox_notice(op, bytes, token), where the area
// ends: the sender finds it as the agent finds a polled message.  Without
// a free area (or room in the agent's send queue) the data comes in the
// usual reply message.
inline constexpr uint16_t kAnswerArea = 1;

// With remote CQ data (ARMCI_OFI_STAGE_CQ_DATA) a staged write is its own
// notice: its 8 bytes name the sender, its token and the slot, and the
// agent takes the message's length from the header in the slot.  One
// message per chunk instead of two.
inline uint64_t stage_cq_data(uint32_t origin, uint32_t token, uint32_t slot) {
  return uint64_t{origin} << 32 | uint64_t{token & 0xffffffu} << 8 | (slot & 0xffu);
}
struct StageNotice {
  uint32_t origin, token, slot;
};
inline StageNotice stage_notice(uint64_t data) {
  return {static_cast<uint32_t>(data >> 32), static_cast<uint32_t>(data >> 8) & 0xffffffu,
          static_cast<uint32_t>(data & 0xffu)};
}

// Room for a signal's payload (mailbox pieces) in one active message.
inline constexpr std::size_t kSignalPayloadMax = kAmMax - 256;

// Active-message kinds: transports/ofi/am_ops.def.
enum class AmOp : uint16_t {
  None = 0,
#define X(e, name, reply) e,
#include "transports/ofi/am_ops.def"
#undef X
  RequestEnd,
  Reply = 100,
};
// Requests are 1..kAmRequestKinds-1 (ARMCI_STATS counts them by kind).
constexpr int kAmRequestKinds = static_cast<int>(AmOp::RequestEnd);
enum class AmReply : uint8_t { None, Counted, Scatter, Waited };
inline const char* am_op_name(int op) {
  static const char* const kNames[kAmRequestKinds] = {"?",
#define X(e, name, reply) #name,
#include "transports/ofi/am_ops.def"
#undef X
  };
  return op > 0 && op < kAmRequestKinds ? kNames[op] : "?";
}
inline AmReply am_reply(AmOp op) {
  static const AmReply kReply[kAmRequestKinds] = {AmReply::None,
#define X(e, name, reply) AmReply::reply,
#include "transports/ofi/am_ops.def"
#undef X
  };
  const int i = static_cast<int>(op);
  return i > 0 && i < kAmRequestKinds ? kReply[i] : AmReply::None;
}

// The requests a sender may write into an inbox and the agent serves from
// there: those answered by status alone or with data (GetPieces, a Batch
// with gets: into an answer area, or by the usual reply message).
inline bool polled_op(uint16_t op) {
  switch (static_cast<AmOp>(op)) {
    case AmOp::AccOne:
    case AmOp::Acc:
    case AmOp::PutPieces:
    case AmOp::GetPieces:
    case AmOp::Batch: return true;
    default: return false;
  }
}

struct AmHeader {
  uint16_t op;
  uint16_t type;      // ARMCI_ACC_* or ARMCI Rmw op
  uint32_t origin;    // world rank (where replies go)
  uint64_t token;     // echoed in the reply
  uint32_t npieces;
  uint32_t payload;   // bytes after the piece table
  uint64_t arg0;
  uint64_t arg1;
  unsigned char scale[16];
};

// The largest lone accumulate sent as an AccOne: header and data must fit
// the inject size, so the message needs no send completion.  The runtime and
// armci_info both ask here.
constexpr std::size_t acc_one_max(std::size_t inject) {
  return inject > sizeof(AmHeader) ? inject - sizeof(AmHeader) : 0;
}

// A staged get the agent answers by writing the gathered chunk into the
// requester's own slot (ARMCI_OFI_STAGE_CQ_DATA, where the provider carries
// remote CQ data): the write's CQ data, the request's token, is the answer,
// so a chunk costs one request and one write instead of a request, a reply
// and an RMA read.  The request says so in its type and names the slot in
// its (otherwise unused) scale bytes.  Requester and agent decide from the
// same provider's cq_data_size, so they agree (an agent that could not
// would refuse the request, never misread it).
inline constexpr uint16_t kStagePush = 1;
struct PushTarget {
  uint64_t addr;  // the requester's slot: a virtual address or an offset in its registration
  uint64_t key;
};
static_assert(sizeof(PushTarget) <= sizeof(AmHeader::scale));

// A signal that asks for no reply (type kQuietSignal, token kQuietToken):
// the sender counts it until a Flush, which its agent answers only after
// every earlier message of that sender, since the provider delivers one
// sender's messages in order (FI_ORDER_SAS).  A barrier's or a message's
// notice then costs one message on the wire instead of a request and a reply.
inline constexpr uint16_t kQuietSignal = 1;
inline constexpr uint64_t kQuietToken = 0xffffffffu;

struct PieceWire {
  uint64_t addr;
  uint64_t len;
};

// Pieces named by a shape instead of a table: pieces [first, first+pieces)
// of the walk of count[1..levels] blocks, stride[l-1] bytes apart, each
// count[0] bytes, from base (transports/strided.hpp walk_side).  The
// messages of one strided transfer repeat its shape and differ in first, so
// neither end builds or reads a piece list.
inline constexpr int kStrideLevels = 8;  // ARMCI_MAX_STRIDE_LEVEL
struct StridedWire {
  uint64_t base;
  uint64_t first;
  uint32_t pieces;
  uint32_t levels;
  int64_t count[kStrideLevels + 1];
  int64_t stride[kStrideLevels];
};

// The requests a kStagePush write back may answer.
inline bool is_staged_get(uint16_t op) {
  return op == static_cast<uint16_t>(AmOp::StagedGet) || op == static_cast<uint16_t>(AmOp::StagedGetStrided);
}

// Messages whose pieces a StridedWire names (the rest of the piece
// messages carry a table).
inline bool names_shape(uint16_t op) {
  return op == static_cast<uint16_t>(AmOp::AccStrided) || op == static_cast<uint16_t>(AmOp::PutStrided) ||
         op == static_cast<uint16_t>(AmOp::StagedGetStrided);
}

struct SignalWire {
  uint64_t data_dst;
  uint32_t len;
  uint32_t flag_op;
  uint32_t flag_size;
  uint32_t wake_flag;
  uint64_t flag;
  uint64_t flag_val;
  uint64_t bits;
  uint64_t bit_mask;
  uint64_t bell;
};

struct ReplyHeader {
  uint16_t op = static_cast<uint16_t>(AmOp::Reply);
  uint16_t of;        // the AmOp answered
  int32_t status;     // 0, or an errno-style failure at the target
  uint64_t token;
  uint64_t value;
  uint64_t a, b, c, d;
  uint32_t len;       // data bytes after the header (GetPieces)
  uint32_t pad;
};

// Data one reply can carry (what a GetPieces request may ask for).
inline constexpr std::size_t kReplyData = kAmMax - sizeof(ReplyHeader);

}  // namespace armci::transport::ofi

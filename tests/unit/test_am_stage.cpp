// The node agent's checks on staged notices and on messages read from a
// staging slot (transports/ofi/am_check.hpp): a notice must name one of the
// sender's own slots and a length that fits it; a message in a slot may be
// longer than an active message, but only when decoded as a staged one.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "armci/armci.h"
#include "transports/ofi/am_check.hpp"
#include "transports/ofi/batch_wire.hpp"

using namespace armci::transport::ofi;

namespace {

constexpr uintptr_t kHeap = 0x100000;
constexpr std::size_t kSlot = 256 << 10;

AmLimits staging_limits() {
  AmLimits lim{kHeap, 8 << 20, 4};
  lim.stage_slot = kSlot;
  lim.stage_slots = kStageSlots;
  return lim;
}

const char* decode_notice(const AmLimits& lim, uint64_t off, uint64_t len) {
  AmHeader h{};
  h.op = static_cast<uint16_t>(AmOp::Staged);
  h.origin = 1;
  h.arg0 = off;
  h.arg1 = len;
  AmView v;
  bool origin_ok = false;
  return am_decode(reinterpret_cast<const char*>(&h), sizeof h, lim, &v, &origin_ok);
}

// A PutPieces message of one piece of n bytes, as the initiator builds it.
std::vector<char> put_message(std::size_t n) {
  AmHeader h{};
  h.op = static_cast<uint16_t>(AmOp::PutPieces);
  h.origin = 2;
  h.npieces = 1;
  h.payload = static_cast<uint32_t>(n);
  const PieceWire p{kHeap + 64, n};
  std::vector<char> m(sizeof h + sizeof p + n, 'x');
  std::memcpy(m.data(), &h, sizeof h);
  std::memcpy(m.data() + sizeof h, &p, sizeof p);
  return m;
}

}  // namespace

TEST(AmStage, NoticeInsideItsSlotsIsAccepted) {
  const AmLimits lim = staging_limits();
  EXPECT_EQ(decode_notice(lim, 0, sizeof(AmHeader) + 100), nullptr);
  EXPECT_EQ(decode_notice(lim, kSlot * (kStageSlots - 1), kSlot), nullptr);
}

TEST(AmStage, NoticeOutsideItsSlotsIsRefused) {
  const AmLimits lim = staging_limits();
  EXPECT_NE(decode_notice(lim, kSlot * kStageSlots, 4096), nullptr) << "slot past the sender's run";
  EXPECT_NE(decode_notice(lim, 100, 4096), nullptr) << "offset inside a slot";
  EXPECT_NE(decode_notice(lim, 0, kSlot + 1), nullptr) << "longer than a slot";
  EXPECT_NE(decode_notice(lim, 0, 8), nullptr) << "shorter than a header";
  AmLimits none = lim;
  none.stage_slot = 0;
  EXPECT_NE(decode_notice(none, 0, 4096), nullptr) << "agent without staging";
}

TEST(AmStage, SlotSizedMessagesDecodeOnlyAsStaged) {
  const std::vector<char> m = put_message(100 << 10);
  AmView v;
  bool origin_ok = false;
  AmLimits lim = staging_limits();
  EXPECT_NE(am_decode(m.data(), m.size(), lim, &v, &origin_ok), nullptr)
      << "a 100 KiB message arriving as an active message";
  lim.max_len = kSlot;
  ASSERT_EQ(am_decode(m.data(), m.size(), lim, &v, &origin_ok), nullptr);
  EXPECT_EQ(v.piece(0).len, 100u << 10);
  EXPECT_EQ(v.h.payload, 100u << 10);
}

TEST(AmStage, StagedPiecesStayInTheHeap) {
  std::vector<char> m = put_message(64 << 10);
  PieceWire p{kHeap + (8 << 20) - 1024, 64 << 10};  // runs past the heap's end
  std::memcpy(m.data() + sizeof(AmHeader), &p, sizeof p);
  AmLimits lim = staging_limits();
  lim.max_len = kSlot;
  AmView v;
  bool origin_ok = false;
  EXPECT_NE(am_decode(m.data(), m.size(), lim, &v, &origin_ok), nullptr);
}

// A staged get names one of the sender's slots and pieces that fit in it;
// it carries no data.
TEST(AmStage, StagedGetFitsItsSlot) {
  auto decode = [](uint64_t off, std::vector<PieceWire> pieces, std::size_t extra = 0) {
    AmHeader h{};
    h.op = static_cast<uint16_t>(AmOp::StagedGet);
    h.origin = 1;
    h.arg0 = off;
    h.npieces = static_cast<uint32_t>(pieces.size());
    std::vector<char> m(sizeof h + pieces.size() * sizeof(PieceWire) + extra, 'x');
    std::memcpy(m.data(), &h, sizeof h);
    if (!pieces.empty()) std::memcpy(m.data() + sizeof h, pieces.data(), pieces.size() * sizeof(PieceWire));
    AmView v;
    bool origin_ok = false;
    return am_decode(m.data(), m.size(), staging_limits(), &v, &origin_ok);
  };
  const std::vector<PieceWire> rows(512, PieceWire{kHeap + 4096, 256});  // 128 KiB
  EXPECT_EQ(decode(0, rows), nullptr);
  EXPECT_EQ(decode(kSlot, {{kHeap, kSlot}}), nullptr) << "a whole slot";
  EXPECT_NE(decode(0, {{kHeap, kSlot}, {kHeap, 8}}), nullptr) << "more than a slot";
  EXPECT_NE(decode(kSlot * kStageSlots, rows), nullptr) << "slot past the sender's run";
  EXPECT_NE(decode(64, rows), nullptr) << "offset inside a slot";
  EXPECT_NE(decode(0, rows, 16), nullptr) << "carries data";
  EXPECT_NE(decode(0, {}), nullptr) << "no pieces";
  EXPECT_NE(decode(0, {{kHeap + (8 << 20) - 100, 256}}), nullptr) << "piece outside the heap";
}

// A staged get is answered by a reply or, if it asks and the agent's
// provider carries remote CQ data, by a write back; nothing else.
TEST(AmStage, StagedGetAnswersOnlyAsTheAgentCan) {
  auto decode = [](uint16_t type, bool push, AmOp op) {
    AmHeader h{};
    h.op = static_cast<uint16_t>(op);
    h.type = type;
    h.origin = 1;
    std::vector<char> m;
    if (op == AmOp::StagedGet) {
      h.npieces = 1;
      const PieceWire p{kHeap + 4096, 4096};
      m.resize(sizeof h + sizeof p);
      std::memcpy(m.data() + sizeof h, &p, sizeof p);
    } else {
      StridedWire w{};
      w.base = kHeap;
      w.pieces = 16;
      w.levels = 1;
      w.count[0] = 256;
      w.count[1] = 16;
      w.stride[0] = 512;
      m.resize(sizeof h + sizeof w);
      std::memcpy(m.data() + sizeof h, &w, sizeof w);
    }
    std::memcpy(m.data(), &h, sizeof h);
    AmLimits lim = staging_limits();
    lim.push = push;
    AmView v;
    bool origin_ok = false;
    return am_decode(m.data(), m.size(), lim, &v, &origin_ok);
  };
  for (AmOp op : {AmOp::StagedGet, AmOp::StagedGetStrided}) {
    EXPECT_EQ(decode(0, false, op), nullptr) << "answered by a reply";
    EXPECT_EQ(decode(0, true, op), nullptr) << "answered by a reply, push possible";
    EXPECT_EQ(decode(kStagePush, true, op), nullptr) << "written back";
    EXPECT_NE(decode(kStagePush, false, op), nullptr) << "written back by an agent that cannot";
    EXPECT_NE(decode(7, true, op), nullptr) << "an unknown way to answer";
  }
}

// Polled messages (kInboxBytes): the notice word is never zero (zero is an
// empty inbox) and gives back kind, length and token; the largest message,
// its notice after it, fills the inbox exactly and any send buffer's
// message fits; only data requests and their gets are polled, never waited
// for, signals, locks or staging.
TEST(AmStage, InboxNoticeNamesKindLengthAndToken) {
  for (uint16_t op : {uint16_t{0}, uint16_t(AmOp::AccOne), uint16_t(AmOp::Batch)})
    for (std::size_t len : {std::size_t{0}, sizeof(AmHeader), kInboxMax})
      for (uint32_t token : {0u, 63u, UINT32_MAX}) {
        const uint64_t w = inbox_notice(op, len, token);
        EXPECT_NE(w, 0u);
        const InboxNotice n = inbox_notice_of(w);
        EXPECT_EQ(n.op, op);
        EXPECT_EQ(n.len, len);
        EXPECT_EQ(n.token, token);
      }
  EXPECT_NE(inbox_answer(0), 0u);
  EXPECT_NE(inbox_answer(1), inbox_answer(2));
  EXPECT_EQ(kInboxMax + sizeof(uint64_t), kInboxBytes);
  EXPECT_LE(kInboxBytes, kInboxRoom);
  EXPECT_EQ(kInboxRoom % 4096, 0u) << "every inbox starts on a page (its notice word aligned)";
  EXPECT_EQ(kInboxBytes, kAmMax) << "a send buffer holds a message and its notice";
  EXPECT_LE(kInboxMax + sizeof(uint64_t), 1u << 16) << "the notice's 16-bit length holds any";
  for (AmOp op : {AmOp::AccOne, AmOp::Acc, AmOp::PutPieces, AmOp::GetPieces, AmOp::Batch})
    EXPECT_TRUE(polled_op(static_cast<uint16_t>(op))) << am_op_name(static_cast<int>(op));
  for (AmOp op : {AmOp::Rmw, AmOp::Signal, AmOp::Lock, AmOp::Unlock, AmOp::StageQuery, AmOp::Staged,
                  AmOp::StagedGet, AmOp::Flush, AmOp::AccStrided, AmOp::PutStrided})
    EXPECT_FALSE(polled_op(static_cast<uint16_t>(op))) << am_op_name(static_cast<int>(op));
}

// A get or batch asks for its data by RMA into an answer area (polled,
// kAnswerArea) or by reply (type 0); any other type is refused.
TEST(AmStage, PolledGetsAnswerIntoAnAreaOrByReply) {
  auto decode = [](AmOp op, uint16_t type) {
    AmHeader h{};
    h.op = static_cast<uint16_t>(op);
    h.type = type;
    h.origin = 1;
    h.npieces = 1;
    h.arg0 = 0x7000;  // the sender's area: its own memory, not checked here
    h.arg1 = 9;
    std::vector<char> m(sizeof h + 16);
    if (op == AmOp::GetPieces) {
      const PieceWire p{kHeap + 64, 256};
      std::memcpy(m.data() + sizeof h, &p, sizeof p);
    } else {
      BatchRecord r{};
      r.kind = static_cast<uint8_t>(BatchKind::Get);
      r.len = 256;
      r.addr = kHeap + 64;
      std::memcpy(m.data() + sizeof h, &r, sizeof r);
      h.payload = sizeof r;  // a batch counts its records as payload
    }
    std::memcpy(m.data(), &h, sizeof h);
    AmView v;
    bool origin_ok = false;
    return am_decode(m.data(), m.size(), staging_limits(), &v, &origin_ok);
  };
  for (AmOp op : {AmOp::GetPieces, AmOp::Batch}) {
    EXPECT_EQ(decode(op, 0), nullptr) << am_op_name(static_cast<int>(op)) << " answered by a reply";
    EXPECT_EQ(decode(op, kAnswerArea), nullptr) << am_op_name(static_cast<int>(op)) << " answered into an area";
    EXPECT_NE(decode(op, 7), nullptr) << am_op_name(static_cast<int>(op)) << ": an unknown way to answer";
  }
}

// A staging query may ask for an inbox (type kStageQueryInbox, naming the
// answer word in arg0/arg1); any other kind, or data, is refused.
TEST(AmStage, StageQueryKinds) {
  const AmLimits lim = staging_limits();
  auto decode = [&](uint16_t type, std::size_t extra) {
    std::vector<char> m(sizeof(AmHeader) + extra, 0);
    AmHeader h{};
    h.op = static_cast<uint16_t>(AmOp::StageQuery);
    h.type = type;
    h.origin = 1;
    h.arg0 = 0x1000;
    h.arg1 = 42;
    h.payload = static_cast<uint32_t>(extra);
    std::memcpy(m.data(), &h, sizeof h);
    AmView v;
    bool origin_ok = false;
    return am_decode(m.data(), m.size(), lim, &v, &origin_ok);
  };
  EXPECT_EQ(decode(0, 0), nullptr);
  EXPECT_EQ(decode(kStageQueryInbox, 0), nullptr);
  EXPECT_EQ(decode(kStageQueryInbox | kStageQueryNoSlots, 0), nullptr);
  EXPECT_EQ(decode(kStageQueryNoSlots, 0), nullptr);
  EXPECT_NE(decode(4, 0), nullptr);
  EXPECT_NE(decode(kStageQueryInbox | 8, 0), nullptr);
  EXPECT_NE(decode(kStageQueryInbox, 8), nullptr);
}

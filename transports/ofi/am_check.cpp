#include "transports/ofi/am_check.hpp"

#include <cstring>

#include "armci/armci.h"
#include "common/shared_sync.hpp"
#include "transports/acc_kernels.hpp"
#include "transports/ofi/batch_wire.hpp"
#include "transports/ticket_lock.hpp"

namespace armci::transport::ofi {

namespace {

bool aligned(uint64_t a, uint64_t to) { return a % to == 0; }

// reply_cap: what a get's pieces may add up to (one reply, or one slot).
const char* check_pieces(const char* body, std::size_t room, const AmLimits& lim, AmView* v,
                         std::size_t reply_cap = kReplyData) {
  const AmHeader& h = v->h;
  const bool carries = h.op != static_cast<uint16_t>(AmOp::GetPieces) && h.op != static_cast<uint16_t>(AmOp::StagedGet);
  if (h.npieces == 0) return "no pieces";
  const uint64_t table = uint64_t{h.npieces} * sizeof(PieceWire);
  if (table > room) return "piece table longer than the message";
  if (carries && uint64_t{h.payload} != room - table) return "payload size does not match the bytes received";
  if (!carries && (h.payload != 0 || room != table)) return "get request carries data";
  const std::size_t es = h.op == static_cast<uint16_t>(AmOp::Acc) ? acc_elem_size(h.type) : 1;
  if (es == 0) return "unknown accumulate type";
  v->table = body;
  v->data = body + table;
  uint64_t total = 0;
  for (uint32_t i = 0; i < h.npieces; ++i) {
    const PieceWire p = v->piece(i);
    if (p.len == 0 || p.len > (carries ? lim.max_len : reply_cap)) return "piece length out of range";
    if (!am_in_heap(lim, p.addr, p.len)) return "piece outside the node heap";
    if (p.len % es) return "accumulate piece not a whole number of elements";
    total += p.len;
  }
  if (carries && total != h.payload) return "piece lengths do not add up to the payload";
  if (!carries && total > reply_cap) return "get pieces do not fit one reply";
  return nullptr;
}

// A shape instead of a table: checked in O(levels), the whole shape's
// bounding box against the heap, so every piece of any message of it is
// inside.  Counts and strides are the sender's: overflow is refused, not
// wrapped.
const char* check_strided(const char* body, std::size_t room, const AmLimits& lim, AmView* v,
                          std::size_t reply_cap) {
  const AmHeader& h = v->h;
  const bool carries = h.op != static_cast<uint16_t>(AmOp::StagedGetStrided);
  if (room < sizeof(StridedWire)) return "strided message shorter than its shape";
  StridedWire& w = v->strided;
  std::memcpy(&w, body, sizeof w);
  if (w.levels < 1 || w.levels > static_cast<uint32_t>(kStrideLevels)) return "stride levels out of range";
  if (w.pieces == 0) return "no pieces";
  if (w.count[0] <= 0 || static_cast<uint64_t>(w.count[0]) > (carries ? lim.max_len : reply_cap))
    return "piece length out of range";
  const std::size_t es = h.op == static_cast<uint16_t>(AmOp::AccStrided) ? acc_elem_size(h.type) : 1;
  if (es == 0) return "unknown accumulate type";
  if (static_cast<uint64_t>(w.count[0]) % es) return "accumulate piece not a whole number of elements";
  uint64_t shape_pieces = 1;
  __int128 lo = w.base, hi = static_cast<__int128>(w.base) + w.count[0];
  for (uint32_t l = 1; l <= w.levels; ++l) {
    if (w.count[l] <= 0) return "block count out of range";
    if (__builtin_mul_overflow(shape_pieces, static_cast<uint64_t>(w.count[l]), &shape_pieces))
      return "more pieces than a shape may have";
    const __int128 span = static_cast<__int128>(w.count[l] - 1) * w.stride[l - 1];
    (span < 0 ? lo : hi) += span;
  }
  if (w.first >= shape_pieces || w.pieces > shape_pieces - w.first) return "pieces beyond the shape";
  if (lo < 0 || hi > static_cast<__int128>(UINT64_MAX) ||
      !am_in_heap(lim, static_cast<uint64_t>(lo), static_cast<uint64_t>(hi - lo)))
    return "shape outside the node heap";
  const uint64_t bytes = uint64_t{w.pieces} * static_cast<uint64_t>(w.count[0]);  // < 2^32 * max_len
  const std::size_t data = room - sizeof w;
  if (carries && (bytes != data || bytes != h.payload)) return "payload size does not match the shape";
  if (!carries && (data != 0 || h.payload != 0)) return "get request carries data";
  if (!carries && bytes > reply_cap) return "get pieces do not fit one slot";
  v->data = body + sizeof w;
  return nullptr;
}

// Staged notices and gets name one of the sender's own slots.
const char* check_slot(const AmHeader& h, const AmLimits& lim) {
  if (lim.stage_slot == 0) return "staging message, but this agent has no staging";
  if (h.arg0 % lim.stage_slot || h.arg0 / lim.stage_slot >= lim.stage_slots) return "staging slot out of range";
  return nullptr;
}

// A staged get is answered by a reply, or (kStagePush) by a write back.
const char* check_get_answer(const AmHeader& h, const AmLimits& lim) {
  if (h.type == 0) return nullptr;
  if (h.type != kStagePush) return "unknown way to answer a staged get";
  return lim.push ? nullptr : "staged get asks to be written back, which this agent's provider cannot announce";
}

const char* check_signal(const AmHeader& h, const char* body, std::size_t room, const AmLimits& lim, AmView* v) {
  if (h.type != 0 && h.type != kQuietSignal) return "unknown kind of signal";
  if (h.type == kQuietSignal && h.token != kQuietToken) return "quiet signal with a token";
  if (room < sizeof(SignalWire)) return "signal shorter than its header";
  SignalWire& w = v->signal;
  std::memcpy(&w, body, sizeof w);
  if (uint64_t{w.len} != room - sizeof w) return "signal payload size does not match the bytes received";
  if (w.len && !am_in_heap(lim, w.data_dst, w.len)) return "signal data outside the node heap";
  if (!w.data_dst && w.len) return "signal data without a destination";
  if (w.flag_op > static_cast<uint32_t>(FlagOp::Add)) return "unknown flag operation";
  if (w.flag_op != static_cast<uint32_t>(FlagOp::None)) {
    if (w.flag_size != 4 && w.flag_size != 8) return "flag size not 4 or 8";
    if (!am_in_heap(lim, w.flag, w.flag_size) || !aligned(w.flag, w.flag_size)) return "flag outside the node heap";
  }
  if (w.bits && (!am_in_heap(lim, w.bits, 8) || !aligned(w.bits, 8))) return "pending bits outside the node heap";
  if (w.bell && (!am_in_heap(lim, w.bell, sizeof(Doorbell)) || !aligned(w.bell, alignof(Doorbell))))
    return "doorbell outside the node heap";
  v->signal_data = body + sizeof w;
  return nullptr;
}

// Records of a coalesced batch: each one whole inside the message, inside
// the heap, of a known kind and accumulate type; together exactly the bytes
// received, and the gets' data no more than one reply holds.
const char* check_batch(const char* body, std::size_t room, const AmLimits& lim, AmView* v) {
  const AmHeader& h = v->h;
  if (h.npieces == 0) return "batch without records";
  if (h.payload != room) return "batch size does not match the bytes received";
  std::size_t at = 0, gets = 0;
  for (uint32_t i = 0; i < h.npieces; ++i) {
    if (room - at < sizeof(BatchRecord)) return "batch record beyond the message";
    BatchRecord r;
    std::memcpy(&r, body + at, sizeof r);
    if (r.kind < static_cast<uint8_t>(BatchKind::Put) || r.kind > static_cast<uint8_t>(BatchKind::Get))
      return "unknown kind of batch record";
    const auto kind = static_cast<BatchKind>(r.kind);
    if (r.len == 0 || r.len > kAmMax) return "batch record length out of range";
    if (!am_in_heap(lim, r.addr, r.len)) return "batch record outside the node heap";
    if (kind == BatchKind::Acc) {
      const std::size_t es = acc_elem_size(r.type);
      if (es == 0) return "unknown accumulate type";
      if (r.len % es) return "accumulate record not a whole number of elements";
    } else if (r.type != 0) {
      return "type on a put or get record";
    }
    if (kind == BatchKind::Get) gets += r.len;
    const std::size_t bytes = batch_record_bytes(kind, r.len);
    if (bytes > room - at) return "batch record beyond the message";
    at += bytes;
  }
  if (at != room) return "bytes after the last batch record";
  if (gets > kBatchReplyRoom) return "batch gets do not fit one reply";
  v->data = body;
  return nullptr;
}

// AccOne: no table, the header names the one piece.
const char* check_acc_one(const char* body, std::size_t room, const AmLimits& lim, AmView* v) {
  const AmHeader& h = v->h;
  const std::size_t es = acc_elem_size(h.type);
  if (es == 0) return "unknown accumulate type";
  if (h.npieces != 0) return "lone accumulate carries a piece table";
  if (room == 0 || h.payload != room) return "payload size does not match the bytes received";
  if (room % es) return "accumulate piece not a whole number of elements";
  if (!am_in_heap(lim, h.arg0, room)) return "piece outside the node heap";
  v->data = body;
  return nullptr;
}

}  // namespace

Signal AmView::to_signal() const {
  Signal s;
  s.data_dst = signal.data_dst;
  s.data = signal_data;
  s.len = signal.len;
  s.flag_op = static_cast<FlagOp>(signal.flag_op);
  s.flag_size = signal.flag_size;
  s.flag = signal.flag;
  s.flag_val = signal.flag_val;
  s.wake_flag = signal.wake_flag != 0;
  s.bits = signal.bits;
  s.bit_mask = signal.bit_mask;
  s.bell = signal.bell;
  return s;
}

uint64_t staged_length(const AmHeader& h) {
  const uint64_t table = names_shape(h.op) ? sizeof(StridedWire) : uint64_t{h.npieces} * sizeof(PieceWire);
  return sizeof h + table + h.payload;
}

const char* am_decode(const char* buf, std::size_t len, const AmLimits& lim, AmView* v, bool* origin_ok) {
  *origin_ok = false;
  if (len < sizeof(AmHeader)) return "shorter than a header";
  if (len > lim.max_len) return "longer than the largest message";
  std::memcpy(&v->h, buf, sizeof v->h);
  const AmHeader& h = v->h;
  if (h.origin >= lim.nprocs) return "origin is not a process of the job";
  *origin_ok = true;
  if (h.op == 0 || h.op >= kAmRequestKinds) return "unknown kind";
  const char* body = buf + sizeof h;
  const std::size_t room = len - sizeof h;
  switch (static_cast<AmOp>(h.op)) {
    case AmOp::Acc:
    case AmOp::PutPieces:
    case AmOp::GetPieces:
      if (h.op == static_cast<uint16_t>(AmOp::GetPieces) && h.type != 0 && h.type != kAnswerArea)
        return "unknown way to answer a get";
      return check_pieces(body, room, lim, v);
    case AmOp::Signal: return check_signal(h, body, room, lim, v);
    case AmOp::Rmw: {
      if (room) return "rmw carries data";
      const bool word = h.type == ARMCI_FETCH_AND_ADD || h.type == ARMCI_SWAP;
      if (!word && h.type != ARMCI_FETCH_AND_ADD_LONG && h.type != ARMCI_SWAP_LONG) return "unknown rmw operation";
      const uint64_t size = word ? 4 : 8;
      if (!am_in_heap(lim, h.arg0, size) || !aligned(h.arg0, size)) return "rmw address outside the node heap";
      return nullptr;
    }
    case AmOp::Lock:
    case AmOp::TryLock:
    case AmOp::Unlock:
      if (room) return "lock request carries data";
      if (!am_in_heap(lim, h.arg0, sizeof(TicketLock)) || !aligned(h.arg0, alignof(TicketLock)))
        return "mutex outside the node heap";
      return nullptr;
    case AmOp::SegQuery: return room ? "segment query carries data" : nullptr;
    case AmOp::StageQuery:
      if (room) return "staging query carries data";
      return (h.type & ~(kStageQueryInbox | kStageQueryNoSlots)) == 0 ? nullptr : "unknown kind of staging query";
    case AmOp::Flush: return room ? "flush carries data" : nullptr;
    case AmOp::Staged:
      if (room) return "staged notice carries data";
      if (const char* why = check_slot(h, lim)) return why;
      if (h.arg1 < sizeof(AmHeader) || h.arg1 > lim.stage_slot) return "staged message length out of range";
      return nullptr;
    case AmOp::StagedGet:
      if (const char* why = check_slot(h, lim)) return why;
      if (const char* why = check_get_answer(h, lim)) return why;
      return check_pieces(body, room, lim, v, lim.stage_slot);
    case AmOp::AccStrided:
    case AmOp::PutStrided: return check_strided(body, room, lim, v, 0);
    case AmOp::StagedGetStrided:
      if (const char* why = check_slot(h, lim)) return why;
      if (const char* why = check_get_answer(h, lim)) return why;
      return check_strided(body, room, lim, v, lim.stage_slot);
    case AmOp::Batch:
      if (h.type != 0 && h.type != kAnswerArea) return "unknown way to answer a batch";
      return check_batch(body, room, lim, v);
    case AmOp::AccOne: return check_acc_one(body, room, lim, v);
    default: return "unknown kind";
  }
}

}  // namespace armci::transport::ofi

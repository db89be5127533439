// Active messages to other nodes' agents: accumulates, Rmw, signals, lock
// hand-off, packed small pieces, segment queries; and their replies.
#include <rdma/fi_errno.h>

#include <cstring>

#include "armci/armci.h"
#include "common/log.hpp"
#include "transports/acc_kernels.hpp"
#include "transports/ofi/initiator.hpp"

namespace armci::transport {

void AmChannel::make_room(int node, bool quiet_signal) {
  AmWindow& w = win(node);
  // The first quiet signal also takes the place kept for its Flush.
  auto fits = [&] {
    return quiet_signal ? w.used() + (w.quiet ? 1 : 2) <= w.window : w.used() + 1 <= w.window && reply_free();
  };
  // Other threads may add quiet signals while this one waits (the lock is
  // let go): flush them too, or nothing would ever answer for them.
  while (!fits()) {
    if (w.quiet) {
      flush_quiet(node);
      continue;
    }
    core_.wait_until([&] { return fits() || w.quiet != 0; }, "answers from a busy node agent");
  }
}

uint32_t AmChannel::new_pending(int node, AmOp op) {
  // Never more unanswered than reply receives posted either: neither end
  // then sees an unexpected message.
  make_room(node, false);
  return take_token(node, op);
}

void AmChannel::flush_quiet(int node) {
  AmWindow& w = win(node);
  if (!w.quiet) return;
  if (!reply_free()) core_.wait_until([&] { return reply_free() || !w.quiet; }, "answers from a busy node agent");
  if (!w.quiet) return;  // another thread flushed while this one waited
  // The Flush takes the place kept for it; the signals it retires stay
  // counted until its reply.
  const uint32_t retired = w.quiet;
  w.quiet = 0;
  w.quiet_fenced = false;
  uint32_t t = take_token(node, AmOp::Flush);
  pending[t].retires = retired;
  w.ams += retired;
  send_header(node, t, AmOp::Flush, 0, 0, 0, "flush of signals");
}

bool AmChannel::quiet_signal(int node, bool fenced) {
  AmWindow& w = win(node);
  // A window of one has no place for a quiet signal and its Flush.
  if (!quiet_signals || w.window < 2) return false;
  make_room(node, true);
  ++w.quiet;
  ++core_.stats.quiet_signals;
  w.quiet_fenced |= fenced;
  count_sent(AmOp::Signal);
  return true;
}

uint32_t AmChannel::take_token(int node, AmOp op) {
  const uint32_t t = open(node, op);
  ++win(node).ams;
  count_sent(op);
  return t;
}

void AmChannel::count_sent(AmOp op) {
  ++core_.stats.am_sent;
  if (static_cast<int>(op) < ofi::kAmRequestKinds) ++core_.stats.am_by_op[static_cast<int>(op)];
}

uint32_t AmChannel::control(int node, AmOp op, uint16_t type, uint64_t arg0, uint64_t arg1, const char* what) {
  uint32_t t = new_pending(node, op);
  send_header(node, t, op, type, arg0, arg1, what);
  return t;
}

void AmChannel::send_header(int node, uint32_t token, AmOp op, uint16_t type, uint64_t arg0, uint64_t arg1,
                            const char* what) {
  int b = take_send_buf();
  AmHeader h{};
  h.op = static_cast<uint16_t>(op);
  h.type = type;
  h.origin = static_cast<uint32_t>(core_.cfg.me);
  h.token = token;
  h.arg0 = arg0;
  h.arg1 = arg1;
  std::memcpy(send_buf(b), &h, sizeof h);
  send(node, b, sizeof h, what);
}

AmHeader AmChannel::pieces_header(AmOp op, int type, const void* scale, uint32_t t) const {
  AmHeader h{};
  h.op = static_cast<uint16_t>(op);
  h.type = static_cast<uint16_t>(type);
  h.origin = static_cast<uint32_t>(core_.cfg.me);
  h.token = t;
  if (scale) std::memcpy(h.scale, scale, acc_scale_size(type));
  return h;
}

void AmChannel::send(int node, int buf, std::size_t len, const char* what, bool tracked) {
  if (!tracked && core_.stager.polled_send(node, buf, len)) return;
  void* desc = send_mr ? fi_mr_desc(send_mr) : nullptr;
  char* p = send_buf(buf);
  fid_ep* ep = core_.own().ep;
  if (!tracked && len <= core_.rma.inject_limit()) {
    core_.post([&] { return fi_inject(ep, p, len, static_cast<fi_addr_t>(node)); }, node, what);
    free_send.push_back(buf);
    return;
  }
  OpCtx* c = core_.ctx(OpKind::AmSend, node, nullptr, false);
  c->buf = buf;
  core_.post([&] { return fi_send(ep, p, len, desc, static_cast<fi_addr_t>(node), &c->fi); }, node, what);
}

int AmChannel::take_send_buf() {
  core_.wait_until([&] { return !free_send.empty(); }, "a free active-message buffer");
  int i = free_send.back();
  free_send.pop_back();
  return i;
}

void AmChannel::wait_reply(uint32_t token, const char* what) {
  core_.wait_until([&] { return pending[token].done; }, what);
  const ReplyHeader& r = pending[token].reply;
  // Queries answer "none" in the status; the caller reads it.
  if (r.status != 0 && r.of != static_cast<uint16_t>(AmOp::SegQuery) && r.of != static_cast<uint16_t>(AmOp::StageQuery))
    fatal("ARMCI", "node %d's agent refused an operation (%s): error %d", pending[token].node, what, r.status);
}

void AmChannel::post_reply_recv(int i) {
  OpCtx* c = core_.ctx(OpKind::ReplyRecv, -1, nullptr, false);
  c->buf = i;
  void* desc = recv_mr ? fi_mr_desc(recv_mr) : nullptr;
  char* p = recv_buf(i);
  fid_ep* ep = core_.own().ep;
  core_.post([&] { return fi_recv(ep, p, ofi::kAmMax, desc, FI_ADDR_UNSPEC, &c->fi); }, -1, "fi_recv");
}

void AmChannel::on_reply(const char* buf, std::size_t len) {
  ReplyHeader r;
  if (len < sizeof r) fatal("ARMCI", "short reply (%zu bytes) from a node agent", len);
  ++core_.stats.am_replies;
  std::memcpy(&r, buf, sizeof r);
  if (r.len > len - sizeof r) fatal("ARMCI", "reply from a node agent announces %u bytes but carries %zu", r.len, len - sizeof r);
  answered(r, buf + sizeof r);
}

// The agent wrote a staged get's chunk into our slot; the CQ data is its
// token.  Nothing else writes into a process's memory from outside.
void AmChannel::on_push(uint64_t data) {
  if (!waiting(data) || !ofi::is_staged_get(static_cast<uint16_t>(pending[data].op)))
    fatal("ARMCI", "a node agent wrote back a staged get for unknown token %llu",
          static_cast<unsigned long long>(data));
  ReplyHeader r{};
  r.of = static_cast<uint16_t>(pending[data].op);
  r.token = data;
  answered(r, nullptr);
}

void AmChannel::answered(const ReplyHeader& r, const char* data) {
  // An agent whose write back failed at its end after the data had arrived
  // here refuses a get that is already answered (and perhaps its token
  // reused): nothing is waiting for that refusal.
  const auto data_by_rma = [](uint16_t of) {
    return ofi::is_staged_get(of) || of == static_cast<uint16_t>(AmOp::GetPieces) ||
           of == static_cast<uint16_t>(AmOp::Batch);
  };
  const bool late_refusal = r.status != 0 && data_by_rma(r.of) &&
                            (!waiting(r.token) || static_cast<uint16_t>(pending[r.token].op) != r.of);
  if (late_refusal) {
    verbose(1, "a node agent refused a get already answered (error %d): ignored", r.status);
    return;
  }
  if (!known(r.token)) {
    if (r.token == ofi::kQuietToken)  // only a refusal answers a quiet signal
      fatal("ARMCI", "a node agent refused a signal of this process (error %d)", r.status);
    fatal("ARMCI", "reply for unknown token %llu", static_cast<unsigned long long>(r.token));
  }
  PendingAm& p = pending[r.token];
  p.reply = r;
  core_.stager.answered_by_message(p.node, r.token);
  answered(p);
  if (p.stage_slot >= 0) core_.stager.answered(p.node, p.stage_slot);
  win(p.node).ams -= 1 + p.retires;
  const ofi::AmReply kind = ofi::am_reply(p.op);
  if (r.status != 0 && kind != ofi::AmReply::Waited)
    fatal("ARMCI", "node %d's agent refused an operation (%s): error %d", p.node,
          ofi::am_op_name(static_cast<int>(p.op)), r.status);
  if (kind == ofi::AmReply::Waited) return;  // the waiter reads the reply and frees the entry
  if (kind == ofi::AmReply::Scatter) {
    std::size_t want = 0;
    for (const auto& q : p.scatter) want += q.bytes;
    if (r.len != want)
      fatal("ARMCI", "node %d's agent answered %s with %u bytes where %zu were asked for", p.node,
            ofi::am_op_name(static_cast<int>(p.op)), r.len, want);
    core_.stats.remote_bytes += r.len;  // data that came back across the network
    const char* d = data;
    for (std::size_t i = 0; i < p.scatter.size(); ++i) {
      const Piece& q = p.scatter[i];
      std::memcpy(const_cast<void*>(q.local), d, q.bytes);
      d += q.bytes;
      if (p.op == AmOp::Batch) core_.local_done(p.node, p.scatter_reqs[i]);  // one request per get
    }
    if (p.op != AmOp::Batch) core_.local_done(p.node, p.req);
  }
  // Nobody waits for the rest individually: fences count them.
  p.scatter.clear();
  close(static_cast<uint32_t>(r.token));
}

std::size_t AmChannel::fill_pieces(char* m, std::size_t cap, AmHeader& h, Pieces p, std::size_t& i,
                                   std::size_t& done, std::vector<Piece>& parts, std::size_t reply_cap) {
  const AmOp op = static_cast<AmOp>(h.op);
  const bool carries_data = op != AmOp::GetPieces && op != AmOp::StagedGet;
  const std::size_t elem = op == AmOp::Acc ? acc_elem_size(h.type) : 1;
  // Piece table first, data after it (sizes known only once we know how
  // many pieces fit).  This thread's: callers may let go of the lock.
  thread_local std::vector<ofi::PieceWire> table;
  table.clear();
  parts.clear();
  std::size_t room = cap - sizeof h;
  std::size_t data = 0;
  std::size_t reply_room = reply_cap;
  while (i < p.size()) {
    const Piece& q = p[i];
    std::size_t left = q.bytes - done;
    if (room < sizeof(ofi::PieceWire) + elem) break;
    std::size_t take = std::min(left, carries_data ? room - sizeof(ofi::PieceWire) : reply_room);
    take -= take % elem;
    if (take == 0) break;
    table.push_back({q.remote + done, take});
    parts.push_back({static_cast<const char*>(q.local) + done, q.remote + done, take});
    room -= sizeof(ofi::PieceWire);
    if (carries_data) room -= take;
    else reply_room -= take;
    data += carries_data ? take : 0;
    done += take;
    if (done == q.bytes) {
      ++i;
      done = 0;
    }
    if (!carries_data && reply_room == 0) break;
  }
  h.npieces = static_cast<uint32_t>(table.size());
  h.payload = static_cast<uint32_t>(data);
  std::memcpy(m, &h, sizeof h);
  std::memcpy(m + sizeof h, table.data(), table.size() * sizeof(ofi::PieceWire));
  char* d = m + sizeof h + table.size() * sizeof(ofi::PieceWire);
  if (carries_data)
    for (const auto& q : parts) {
      std::memcpy(d, q.local, q.bytes);
      d += q.bytes;
    }
  core_.stats.remote_bytes += data;
  return static_cast<std::size_t>(d - m);
}

void AmChannel::pieces(int node, AmOp op, int type, const void* scale, Pieces p, Request* req) {
  // Big transfers go through the agent's staging slots instead.
  if (op == AmOp::GetPieces ? core_.stager.get_pieces(node, p) : core_.stager.put_pieces(node, op, type, scale, p))
    return;
  core_.stager.lend_inbox(node);
  thread_local std::vector<Piece> parts;
  std::size_t i = 0, done_in_piece = 0;
  while (i < p.size()) {
    // The token first: new_pending may let go of the lock while it waits.
    uint32_t t = new_pending(node, op);
    int b = take_send_buf();
    AmHeader h = pieces_header(op, type, scale, t);
    std::size_t len = fill_pieces(send_buf(b), ofi::kAmMax, h, p, i, done_in_piece, parts);
    if (op == AmOp::GetPieces) {
      pending[t].scatter.assign(parts.begin(), parts.end());  // keeps the entry's capacity
      pending[t].req = req;
      core_.account_local(node, req);
    }
    send(node, b, len, "active message");
  }
}

bool AmChannel::acc_one_fits(std::size_t bytes) const { return bytes <= ofi::acc_one_max(core_.rma.inject_limit()); }

bool AmChannel::acc_one(int node, int type, const void* scale, const Piece& q) {
  if (!acc_one_fits(q.bytes)) return false;
  core_.stager.lend_inbox(node);
  const uint32_t t = new_pending(node, AmOp::AccOne);
  const int b = take_send_buf();
  AmHeader h = pieces_header(AmOp::AccOne, type, scale, t);
  h.arg0 = q.remote;
  h.payload = static_cast<uint32_t>(q.bytes);
  char* m = send_buf(b);
  std::memcpy(m, &h, sizeof h);
  std::memcpy(m + sizeof h, q.local, q.bytes);
  core_.stats.remote_bytes += q.bytes;
  send(node, b, sizeof h + q.bytes, "accumulate");
  return true;
}

// ---------------------------------------------------------------- Ofi API
void OfiImpl::acc(const Target& at, int type, const void* scale, Pieces p) {
  if (native_acc_ok(type)) return native_acc(at, type, scale, p);
  if (coalesce_acc(at.node, type, scale, p)) return;
  order(at.node, OpClass::Am);
  if (p.size() == 1 && am.acc_one(at.node, type, scale, p[0])) return;
  am.pieces(at.node, AmOp::Acc, type, scale, p, nullptr);
}

void Ofi::acc(const Target& at, int optype, const void* scale, const void* src, uintptr_t dst, std::size_t n) {
  const Piece one{src, dst, n};
  OfiImpl::Guard g(*impl_);
  impl_->acc(at, optype, scale, Pieces(&one, 1));
}

void Ofi::acc_strided(const Target& at, int optype, const void* scale, const void* src, uintptr_t dst,
                      const StridedShape& s) {
  OfiImpl::Guard g(*impl_);
  if (!impl_->native_acc_ok(optype) && impl_->stager.put_shape(at.node, AmOp::AccStrided, optype, scale, src, dst, s))
    return;
  impl_->acc(at, optype, scale, strided_pieces(src, dst, s, true));
}

void Ofi::acc_pieces(const Target& at, int optype, const void* scale, Pieces p) {
  OfiImpl::Guard g(*impl_);
  impl_->acc(at, optype, scale, p);
}

void Ofi::rmw(const Target& at, int op, void* ploc, uintptr_t prem, long extra) {
  const int node = at.node;
  OfiImpl& m = *impl_;
  OfiImpl::Guard g(m);
  if (native_rmw(op) && m.native_rmw(at, op, ploc, prem, extra)) return;
  m.order(node, OpClass::Am);
  uint64_t operand;
  if (op == ARMCI_SWAP) operand = static_cast<uint64_t>(static_cast<int64_t>(*static_cast<int*>(ploc)));
  else if (op == ARMCI_SWAP_LONG) operand = static_cast<uint64_t>(*static_cast<long*>(ploc));
  else operand = static_cast<uint64_t>(extra);
  uint32_t t = m.am.control(node, AmOp::Rmw, static_cast<uint16_t>(op), prem, operand, "ARMCI_Rmw");
  m.am.wait_reply(t, "the result of ARMCI_Rmw on another node");
  uint64_t old = m.am.pending[t].reply.value;
  if (op == ARMCI_FETCH_AND_ADD || op == ARMCI_SWAP) *static_cast<int*>(ploc) = static_cast<int>(old);
  else *static_cast<long*>(ploc) = static_cast<long>(old);
  m.am.close(t);
}

void Ofi::signal(int node, const Signal& s) {
  OfiImpl& m = *impl_;
  OfiImpl::Guard g(m);
  m.order(node, OpClass::Am);
  AmHeader h{};
  h.op = static_cast<uint16_t>(AmOp::Signal);
  h.origin = static_cast<uint32_t>(m.cfg.me);
  if (m.am.quiet_signal(node, s.fenced)) {
    h.type = ofi::kQuietSignal;
    h.token = ofi::kQuietToken;
  } else {
    h.token = m.am.new_pending(node, AmOp::Signal);
  }
  int b = m.am.take_send_buf();
  ofi::SignalWire w{s.data_dst, s.len, static_cast<uint32_t>(s.flag_op), s.flag_size,
                    s.wake_flag ? 1u : 0u, s.flag, s.flag_val, s.bits, s.bit_mask, s.bell};
  if (sizeof h + sizeof w + s.len > ofi::kAmMax)
    fatal("ARMCI", "signal payload of %u bytes exceeds the active-message size", s.len);
  char* p = m.am.send_buf(b);
  std::memcpy(p, &h, sizeof h);
  std::memcpy(p + sizeof h, &w, sizeof w);
  if (s.len) std::memcpy(p + sizeof h + sizeof w, s.data, s.len);
  // A quiet signal is sent with a completion: until the provider has it on
  // the wire, busy() keeps a waiting caller driving progress instead of
  // sleeping (no reply will come to wake it).
  m.am.send(node, b, sizeof h + sizeof w + s.len, "signal", h.type == ofi::kQuietSignal);
}

void Ofi::lock(int node, uintptr_t lock_addr) {
  OfiImpl& m = *impl_;
  OfiImpl::Guard g(m);
  m.order(node, OpClass::Am);
  uint32_t t = m.am.control(node, AmOp::Lock, 0, lock_addr, 0, "ARMCI_Lock");
  m.am.wait_reply(t, "a mutex on another node");
  m.am.close(t);
}

bool Ofi::trylock(int node, uintptr_t lock_addr) {
  OfiImpl& m = *impl_;
  OfiImpl::Guard g(m);
  m.order(node, OpClass::Am);
  uint32_t t = m.am.control(node, AmOp::TryLock, 0, lock_addr, 0, "ARMCIX_Trylock_hdl");
  m.am.wait_reply(t, "the answer of a mutex on another node");
  const bool taken = m.am.pending[t].reply.value != 0;
  m.am.close(t);
  return taken;
}

void Ofi::unlock(int node, uintptr_t lock_addr) {
  OfiImpl& m = *impl_;
  OfiImpl::Guard g(m);
  // What was written under the lock is in place before the next holder runs
  // (same-node stores are ordered by the unlock's release itself).
  m.fence_all();
  m.order(node, OpClass::Am);
  m.am.control(node, AmOp::Unlock, 0, lock_addr, 0, "ARMCI_Unlock");
}

}  // namespace armci::transport

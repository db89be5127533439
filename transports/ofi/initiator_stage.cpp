// Staged accumulates and packed puts (ARMCI_OFI_STAGE_*): a message too big
// for one active message is built in a local slot, written by RMA into a
// slot the target node's agent lent this process, and announced by the
// write's own remote CQ data (or a small Staged notice); the agent applies
// it and its reply frees the slot.  Two slots each side: while the agent
// applies one chunk the next is on the wire, so the bytes move at RMA
// bandwidth rather than at the rate of 16 KiB eager messages.  Gets of many
// small pieces go the other way: the agent gathers them into a slot and
// writes it back into one of ours (or, without remote CQ data, this process
// reads it by RMA), and this process scatters it.  Strided transfers name
// their pieces by shape (StridedWire), vectors by a piece table; a
// contiguous accumulate's data goes straight from the caller's buffer.
#include <atomic>
#include <cstring>

#include "common/log.hpp"
#include "transports/acc_kernels.hpp"
#include "transports/ofi/initiator.hpp"

namespace armci::transport {

bool Stager::ready(int node) {
  if (lease(node).state == StageLease::kUnasked) ask(node, true);
  return lease(node).state == StageLease::kLent;
}

// One StageQuery for slots (if `slots`) and an inbox (if polled messages
// are on and none was asked for yet).  What is asked is "no" until the
// reply says otherwise, for another thread asking meanwhile.
void Stager::ask(int node, bool slots) {
  StageLease& s = lease(node);
  const bool inbox = set_.inbox && s.box == StageLease::kUnasked;
  if (slots) s.state = StageLease::kNone;
  if (inbox) s.box = StageLease::kNone;
  uint16_t kind = slots ? 0 : ofi::kStageQueryNoSlots;
  uint64_t word = 0, word_key = 0;
  if (inbox) {
    if (!answers_mr_) {
      answers_mr_ = core_.own().register_memory(answers_.data(), answers_.size() * sizeof(uint64_t), FI_REMOTE_WRITE,
                                                kLocalKeyBase - 5);
      areas_.resize(kAnswerAreas * ofi::kAmMax);
      areas_mr_ = core_.own().register_memory(areas_.data(), areas_.size(), FI_REMOTE_WRITE, kLocalKeyBase - 6);
      for (int a = kAnswerAreas - 1; a >= 0; --a) area_free_.push_back(a);
    }
    kind |= ofi::kStageQueryInbox;
    word = answer_remote(node);
    word_key = fi_mr_key(answers_mr_);
  }
  uint32_t t = core_.am.control(node, AmOp::StageQuery, kind, word, word_key, "staging query");
  core_.am.wait_reply(t, "staging slots from another node's agent");
  const ReplyHeader r = core_.am.pending[t].reply;
  core_.am.close(t);
  if (r.status == 0) s.key = r.c;
  if (inbox && r.status == 0 && (r.value & ofi::kInboxGranted)) {
    s.inbox_at = r.d;
    s.box = StageLease::kLent;
  }
  if (!slots) return;
  if (r.status != 0 || (r.value & 0xff) < ofi::kStageSlots || r.b < 2 * ofi::kAmMax) {
    verbose(2, "staging to node %d: its agent has no slots left (status %d, value %#llx); large accumulates go "
            "as active messages", node, r.status, static_cast<unsigned long long>(r.value));
    return;
  }
  if (local_.empty()) {
    local_.resize(ofi::kStageLocal * core_.cfg.stage_slot);
    // Agents write staged gets back into these slots (kStagePush).
    if (core_.caps.mr_local || set_.push)
      local_mr_ =
          core_.own().register_memory(local_.data(), local_.size(),
                                      FI_READ | FI_WRITE | (set_.push ? FI_REMOTE_WRITE : 0), (uint64_t{1} << 32) - 4);
    local_gen_.assign(ofi::kStageLocal, 0);
    for (int i = static_cast<int>(ofi::kStageLocal) - 1; i >= 0; --i) local_free_.push_back(i);
  }
  s.addr = r.a;
  s.slot = r.b;
  s.free = (1u << ofi::kStageSlots) - 1;
  s.state = StageLease::kLent;
}

uint64_t Stager::area_remote(int a) const {
  const std::size_t off = static_cast<std::size_t>(a) * ofi::kAmMax;
  return core_.caps.virt_addr ? reinterpret_cast<uint64_t>(areas_.data()) + off : off;
}

uint64_t Stager::answer_remote(int node) const {
  const std::size_t off = static_cast<std::size_t>(node) * sizeof(uint64_t);
  return core_.caps.virt_addr ? reinterpret_cast<uint64_t>(answers_.data()) + off : off;
}

bool Stager::polled_send(int node, int buf, std::size_t len) {
  if (!set_.inbox || len + sizeof(uint64_t) > ofi::kInboxBytes) return false;
  const StageLease& ls = lease(node);
  if (ls.box != StageLease::kLent) return false;
  char* m = core_.am.send_buf(buf);
  AmHeader h;
  std::memcpy(&h, m, sizeof h);
  const auto op = static_cast<AmOp>(h.op);
  const auto t = static_cast<uint32_t>(h.token);
  // The agent serves the inbox before any message of ours it has not
  // handled yet: nothing else of ours may be on its way there, answered or
  // quiet.  Nothing waits from the check to the post.
  const AmWindow& w = core_.am.window(node);
  if (!ofi::polled_op(h.op) || w.ams != 1 || w.quiet != 0) return false;
  std::atomic_ref<uint64_t>(answers_[static_cast<std::size_t>(node)]).store(0, std::memory_order_relaxed);
  // A get's data comes back by RMA too where an area is free.
  int area = -1;
  if (!core_.am.pending[t].scatter.empty() && !area_free_.empty()) {
    area = area_free_.back();
    area_free_.pop_back();
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(area_end(area) - sizeof(uint64_t)))
        .store(0, std::memory_order_relaxed);
    h.type = ofi::kAnswerArea;
    h.arg0 = area_remote(area);
    h.arg1 = fi_mr_key(areas_mr_);
    std::memcpy(m, &h, sizeof h);
  }
  awaiting_.push_back({node, t, op, area});
  const uint64_t notice = ofi::inbox_notice(h.op, len, t);
  std::memcpy(m + len, &notice, sizeof notice);
  const std::size_t total = len + sizeof notice;
  const uint64_t at = ls.inbox_at + ofi::kInboxBytes - total;
  fid_ep* e = core_.own().ep;
  if (total <= core_.rma.inject_limit()) {
    core_.post([&] { return fi_inject_write(e, m, total, static_cast<fi_addr_t>(node), at, ls.key); }, node,
               "fi_inject_write");
    core_.am.free_send.push_back(buf);
  } else {
    // The buffer goes back at the write's completion (OpKind::AmSend).
    OpCtx* c = core_.ctx(OpKind::AmSend, node, nullptr, false);
    c->buf = buf;
    const ofi::OneWrite w{m, total, core_.am.send_mr ? fi_mr_desc(core_.am.send_mr) : nullptr,
                          static_cast<fi_addr_t>(node), at, ls.key, &c->fi};
    core_.post([&] { return ofi::write_one(e, w, FI_INJECT_COMPLETE | FI_COMPLETION); }, node, "fi_writemsg");
  }
  ++core_.stats.polled_ams;
  return true;
}

bool Stager::take_answers() {
  bool any = false;
  for (std::size_t i = 0; i < awaiting_.size();) {
    const Awaited a = awaiting_[i];
    ReplyHeader r{};
    r.of = static_cast<uint16_t>(a.op);
    r.token = a.token;
    const char* data = nullptr;
    // A get's data ends where its area ends, the notice after it (written
    // in stream order: a notice that is there says the data is too).
    const char* end = a.area >= 0 ? area_end(a.area) - sizeof(uint64_t) : nullptr;
    const uint64_t w = end ? std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(const_cast<char*>(end)))
                                 .load(std::memory_order_acquire)
                           : 0;
    const ofi::InboxNotice n = ofi::inbox_notice_of(w);
    if ((w & ofi::kInboxValid) && n.token == a.token && n.op == r.of && n.len <= ofi::kAmMax - sizeof w) {
      r.len = static_cast<uint32_t>(n.len);
      data = end - n.len;
      ++core_.stats.rma_answers;
    } else if (std::atomic_ref<uint64_t>(answers_[static_cast<std::size_t>(a.node)]).load(std::memory_order_acquire) !=
               ofi::inbox_answer(a.token)) {
      ++i;
      continue;
    }
    awaiting_[i] = awaiting_.back();
    awaiting_.pop_back();
    core_.am.answered(r, data);  // answered_by_message finds nothing left to drop
    if (a.area >= 0) area_free_.push_back(a.area);
    any = true;
  }
  return any;
}

char* Stager::local_slot(int l) { return local_.data() + static_cast<std::size_t>(l) * core_.cfg.stage_slot; }

// The put side of staging, whatever names the pieces: fill(m, cap, token)
// builds the next message into a local slot of cap bytes and returns it as
// a Chunk (its data may stay in the caller's buffer); called while
// more() holds.  Returns once no write of the call still reads the
// caller's memory.
template <typename More, typename Fill>
void Stager::out(int node, More&& more, Fill&& fill) {
  StageLease& ls = lease(node);
  const std::size_t slot_bytes = ls.chunk(core_.cfg.stage_slot);  // what one chunk may hold
  struct Flight {
    int local;
    uint32_t gen;  // the local slot's completions before this write
    uint32_t token;
    int slot;
    std::size_t len;
    bool borrowed;  // its data is read from the caller's memory
  };
  // This call's chunks written but not yet announced, oldest first.
  thread_local std::vector<Flight> flight;
  flight.clear();
  std::size_t head = 0;  // first unannounced entry of flight
  // With FI_ORDER_SAW the agent sees the notice only after the write's data:
  // announce at once.  Otherwise wait until the write is delivered.  With
  // remote CQ data the write announces itself.
  const bool saw = core_.caps.has(FI_ORDER_SAW);
  auto written = [&](const Flight& f) { return local_gen_[static_cast<std::size_t>(f.local)] != f.gen; };
  auto announce_oldest = [&] {
    const Flight f = flight[head++];
    if (set_.cq_data) return;
    if (!saw)  // this write, not a later one that reused its local slot
      core_.wait_until([&] { return written(f); }, "a write into another node's staging slot");
    core_.am.send_header(node, f.token, AmOp::Staged, 0, ls.offset(f.slot), f.len, "staged notice");
  };
  while (more()) {
    // A written chunk holds a token until announced: announce it before
    // waiting for a token only its answer would free.
    if (head < flight.size() && (core_.am.full(node) || !core_.am.reply_free())) {
      announce_oldest();
      continue;
    }
    if (!ls.has_free() || local_free_.empty()) {
      // Announce what is written (its reply frees a slot), or wait for a
      // reply to earlier chunks.
      if (head < flight.size()) announce_oldest();
      else
        core_.wait_until([&] { return ls.has_free() && !local_free_.empty(); },
                         "a free staging slot at another node's agent");
      continue;
    }
    const int slot = ls.take();
    const int l = local_free_.back();
    local_free_.pop_back();
    // The token last: new_pending may let go of the lock, and the slots are
    // already ours.
    const uint32_t t = core_.am.new_pending(node, AmOp::Staged);
    core_.am.pending[t].stage_slot = slot;
    char* m = local_slot(l);
    const Chunk k = fill(m, slot_bytes, t);  // counts the bytes
    OpCtx* c = core_.ctx(OpKind::StageWrite, node, nullptr, false);
    c->buf = l;
    const uint32_t gen = local_gen_[static_cast<std::size_t>(l)];
    iovec iov[2] = {{m, k.len}, {const_cast<void*>(k.tail), k.tail_len}};
    void* desc[2] = {local_mr_ ? fi_mr_desc(local_mr_) : nullptr,
                     k.tail ? core_.rma.local_desc(k.tail, k.tail_len) : nullptr};
    const std::size_t len = k.len + k.tail_len;
    fi_rma_iov rio{ls.remote(slot), len, ls.key};
    // With SAW or CQ data the notice is ordered behind the data: the local
    // slot is free once copied out (inject completion: tcp acknowledges a
    // transmit-complete write from the agent).  Without, the notice waits
    // for delivery.
    const bool at_once = saw || set_.cq_data;
    uint64_t flags = (at_once ? FI_INJECT_COMPLETE : FI_DELIVERY_COMPLETE) | FI_COMPLETION;
    if (set_.cq_data) flags |= FI_REMOTE_CQ_DATA;
    core_.rma.post({Dir::Put, node, iov, desc, k.tail ? 2u : 1u, &rio, 1, c, flags, 0,
                    ofi::stage_cq_data(static_cast<uint32_t>(core_.cfg.me), t, static_cast<uint32_t>(slot))});
    flight.push_back({l, gen, t, slot, len, k.tail != nullptr});
    if (at_once) announce_oldest();
  }
  while (head < flight.size()) announce_oldest();
  for (const Flight& f : flight)
    if (f.borrowed && !written(f))
      core_.wait_until([&] { return written(f); }, "a staged write from the caller's buffer");
}

// The get side: request(buf, h, f) builds the next StagedGet(Strided)
// request for the agent into send buffer buf (h: its header, slot offset
// set), notes in f what it asks for (f.len bytes) and returns its length;
// scatter(f, data) puts a read chunk in place.
template <typename More, typename Ask, typename Scatter>
void Stager::in(int node, AmOp op, More&& more, Ask&& request, Scatter&& scatter) {
  StageLease& ls = lease(node);
  // Read (pull): a request holds an agent slot from its sending until its
  // read is done, and a local slot from the read's posting until its
  // scatter: the agent gathers the next chunk while this thread scatters
  // the last one.
  // Requests of this call not yet scattered, oldest first.  This thread's:
  // waiting may let go of the lock.
  thread_local std::vector<GetFlight> flight;        // entries persist: their parts keep capacity
  std::size_t head = 0, used = 0;                    // used: entries this call filled
  // Sends the next request for agent slot `slot` (both slots already taken;
  // local >= 0: to be written back there).
  auto ask = [&](int slot, int local) {
    const uint32_t t = core_.am.new_pending(node, op);  // last: may let go of the lock
    const int b = core_.am.take_send_buf();
    AmHeader h = core_.am.pieces_header(op, 0, nullptr, t);
    h.arg0 = ls.offset(slot);
    if (local >= 0) {
      core_.am.pending[t].stage_slot = slot;  // free again once written back
      h.type = ofi::kStagePush;
      const std::size_t off = static_cast<std::size_t>(local) * core_.cfg.stage_slot;
      const ofi::PushTarget to{core_.caps.virt_addr ? reinterpret_cast<uint64_t>(local_.data() + off) : off,
                               fi_mr_key(local_mr_)};
      std::memcpy(h.scale, &to, sizeof to);
    }
    if (used == flight.size()) flight.emplace_back();
    GetFlight& f = flight[used++];
    f.token = t;
    f.slot = slot;
    f.local = local;
    f.gen = 0;
    core_.am.send(node, b, request(core_.am.send_buf(b), h, f), "staged get request");
  };
  if (set_.push) {
    // Written back: a request holds a local slot from its sending until its
    // chunk is scattered, and the agent's slot until the chunk arrives (the
    // agent gathers into it again only once its write completed there).
    while (more() || head < used) {
      const bool mine_in_flight = head < used;
      if (more() && ls.has_free() && !local_free_.empty() &&
          (!mine_in_flight || (!core_.am.full(node) && core_.am.reply_free()))) {
        const int slot = ls.take();
        const int l = local_free_.back();
        local_free_.pop_back();
        ask(slot, l);
        continue;
      }
      if (!mine_in_flight) {  // slots held by this process's other threads
        core_.wait_until([&] { return ls.has_free() && !local_free_.empty(); },
                         "a free staging slot at another node's agent");
        continue;
      }
      const GetFlight& f = flight[head];
      core_.am.wait_reply(f.token, "another node's agent writing back a staged get");
      core_.am.close(f.token);
      core_.stats.remote_bytes += f.len;
      ++core_.stats.remote_ops;
      ++core_.stats.written_back;
      scatter(f, local_slot(f.local));
      local_free_.push_back(f.local);
      ++head;
    }
    return;
  }
  auto read_done = [&](const GetFlight& f) {
    return f.local >= 0 && local_gen_[static_cast<std::size_t>(f.local)] != f.gen;
  };
  while (more() || head < used) {
    // Oldest first (so local slots go to a prefix of the flight): answered
    // requests get their read; completed reads give back the agent's slot.
    for (std::size_t k = head; k < used; ++k) {
      GetFlight& f = flight[k];
      if (f.local >= 0) {
        if (f.slot >= 0 && read_done(f)) {
          ls.give_back(f.slot);
          f.slot = -1;
        }
        continue;
      }
      if (!core_.am.pending[f.token].done || local_free_.empty()) break;
      core_.am.wait_reply(f.token, "a staged get");  // answered: only checks the status
      core_.am.close(f.token);
      f.local = local_free_.back();
      local_free_.pop_back();
      f.gen = local_gen_[static_cast<std::size_t>(f.local)];
      OpCtx* c = core_.ctx(OpKind::StageRead, node, nullptr, false);
      c->buf = f.local;
      iovec iov{local_slot(f.local), f.len};
      void* desc = local_mr_ ? fi_mr_desc(local_mr_) : nullptr;
      fi_rma_iov rio{ls.remote(f.slot), f.len, ls.key};
      core_.rma.post({Dir::Get, node, &iov, &desc, 1, &rio, 0, c, FI_COMPLETION, f.len});
    }
    const bool mine_in_flight = head < used;
    if (more() && (!mine_in_flight || (ls.has_free() && !core_.am.full(node) && core_.am.reply_free()))) {
      if (!ls.has_free()) {  // held by this process's other threads
        core_.wait_until([&] { return ls.has_free(); }, "a free staging slot at another node's agent");
        continue;
      }
      const int slot = ls.take();
      ask(slot, -1);
      continue;
    }
    const GetFlight& f = flight[head];
    if (f.local < 0) {
      core_.wait_until([&] { return core_.am.pending[flight[head].token].done && !local_free_.empty(); },
                       "another node's agent gathering a staged get");
    } else if (f.slot >= 0) {
      core_.wait_until([&] { return read_done(flight[head]); }, "a read from another node's staging slot");
    } else {
      scatter(f, local_slot(f.local));
      local_free_.push_back(f.local);
      ++head;
    }
  }
}

bool Stager::put_pieces(int node, AmOp op, int type, const void* scale, Pieces p) {
  if (set_.from == 0) return false;
  std::size_t total = 0;
  for (const Piece& q : p) total += q.bytes;
  if (total < set_.from || !ready(node)) return false;
  std::size_t i = 0, done = 0;
  // One piece (a contiguous accumulate): its data goes from the caller's
  // buffer as the write's second iovec, behind header and table.
  if (p.size() == 1 && core_.caps.iov_limit >= 2 &&
      (!core_.caps.mr_local || core_.rma.local_desc(p[0].local, p[0].bytes))) {
    const Piece& q = p[0];
    const std::size_t es = op == AmOp::Acc ? acc_elem_size(type) : 1;
    out(
        node, [&] { return done < q.bytes; },
        [&](char* m, std::size_t cap, uint32_t t) {
          AmHeader h = core_.am.pieces_header(op, type, scale, t);
          std::size_t take = std::min(q.bytes - done, cap - sizeof h - sizeof(ofi::PieceWire));
          take -= take % es;
          const ofi::PieceWire w{q.remote + done, take};
          h.npieces = 1;
          h.payload = static_cast<uint32_t>(take);
          std::memcpy(m, &h, sizeof h);
          std::memcpy(m + sizeof h, &w, sizeof w);
          const Chunk k{sizeof h + sizeof w, static_cast<const char*>(q.local) + done, take};
          done += take;
          core_.stats.remote_bytes += take;
          return k;
        });
    return true;
  }
  thread_local std::vector<Piece> parts;
  out(
      node, [&] { return i < p.size(); },
      [&](char* m, std::size_t cap, uint32_t t) {
        AmHeader h = core_.am.pieces_header(op, type, scale, t);
        return Chunk{core_.am.fill_pieces(m, cap, h, p, i, done, parts)};
      });
  return true;
}

bool Stager::get_pieces(int node, Pieces p) {
  if (set_.from == 0) return false;
  std::size_t total = 0;
  for (const Piece& q : p) total += q.bytes;
  if (total < set_.from || !ready(node)) return false;
  const std::size_t slot_bytes = lease(node).chunk(core_.cfg.stage_slot);
  std::size_t i = 0, done = 0;
  in(
      node, AmOp::StagedGet, [&] { return i < p.size(); },
      [&](char* buf, AmHeader& h, GetFlight& f) {
        const std::size_t len = core_.am.fill_pieces(buf, ofi::kAmMax, h, p, i, done, f.parts, slot_bytes);
        f.len = 0;
        for (const Piece& q : f.parts) f.len += q.bytes;
        return len;
      },
      [&](const GetFlight& f, const char* d) {
        for (const Piece& q : f.parts) {
          std::memcpy(const_cast<void*>(q.local), d, q.bytes);
          d += q.bytes;
        }
      });
  return true;
}

// ------------------------------------------------------------ by shape
bool Stager::takes_shape(int node, AmOp op, const StridedShape& s) {
  // (One piece is a contiguous transfer: OfiImpl::pieces and acc have it.)
  if (set_.from == 0 || s.levels < 1 || s.levels > ofi::kStrideLevels || s.empty() || s.chunks() == 1) return false;
  const auto row = static_cast<std::size_t>(s.count[0]);
  // Puts and gets of pieces too large to pack go as RMA iovec batches
  // (OfiImpl::pieces); accumulates always travel to the agent.
  if (op != AmOp::AccStrided && row >= std::max(core_.rma.pack_below(), set_.pieces_below)) return false;
  // So do rows that fit one RMA post (OfiImpl::pieces).
  if (op != AmOp::AccStrided && s.chunks() <= core_.rma.pieces_per_post()) return false;
  if (s.bytes() < set_.from || !ready(node)) return false;
  const std::size_t cap = lease(node).chunk(core_.cfg.stage_slot);
  return row <= cap - sizeof(AmHeader) - sizeof(ofi::StridedWire);  // a piece fits one message
}

namespace {
// The shape of pieces [first, first + n) of s at the target (base: its
// first byte there, strides: its side's).
ofi::StridedWire shape_wire(const StridedShape& s, uintptr_t base, const long* strides, uint64_t first, uint64_t n) {
  ofi::StridedWire w{};
  w.base = base;
  w.first = first;
  w.pieces = static_cast<uint32_t>(n);
  w.levels = static_cast<uint32_t>(s.levels);
  for (int l = 0; l <= s.levels; ++l) w.count[l] = s.count[l];
  for (int l = 0; l < s.levels; ++l) w.stride[l] = strides[l];
  return w;
}
// Pieces the rest of a message of cap bytes holds after `used`, at most `left`.
uint64_t pieces_fitting(std::size_t cap, std::size_t used, std::size_t row, uint64_t left) {
  return std::min<uint64_t>(left, (cap - used) / row);
}
}  // namespace

bool Stager::put_shape(int node, AmOp op, int type, const void* scale, const void* src, uintptr_t dst,
                       const StridedShape& s) {
  if (!takes_shape(node, op, s)) return false;
  core_.order(node, OpClass::Am);
  const auto row = static_cast<std::size_t>(s.count[0]);
  const uint64_t total = s.chunks();
  uint64_t next = 0;
  auto l = static_cast<const char*>(src);
  out(
      node, [&] { return next < total; },
      [&](char* m, std::size_t cap, uint32_t t) {
        AmHeader h = core_.am.pieces_header(op, type, scale, t);
        const std::size_t head = sizeof h + sizeof(ofi::StridedWire);
        const uint64_t n = pieces_fitting(cap, head, row, total - next);
        const ofi::StridedWire w = shape_wire(s, dst, s.dst_stride, next, n);
        h.payload = static_cast<uint32_t>(n * row);
        std::memcpy(m, &h, sizeof h);
        std::memcpy(m + sizeof h, &w, sizeof w);
        gather_side(s.levels, s.count, s.src_stride, next, n, l, m + head, row);
        next += n;
        core_.stats.remote_bytes += h.payload;
        ++core_.stats.am_by_op[static_cast<int>(op)];  // staged messages named by shape, by kind
        return Chunk{head + h.payload};
      });
  return true;
}

bool Stager::get_shape(int node, uintptr_t src, void* dst, const StridedShape& s) {
  // For a get the remote side is the source: s.src_stride walks it.
  if (!takes_shape(node, AmOp::StagedGetStrided, s)) return false;
  core_.order(node, OpClass::AmGet);
  const auto row = static_cast<std::size_t>(s.count[0]);
  const uint64_t total = s.chunks();
  const std::size_t slot_bytes = lease(node).chunk(core_.cfg.stage_slot);
  uint64_t next = 0;
  auto l = static_cast<char*>(dst);
  in(
      node, AmOp::StagedGetStrided, [&] { return next < total; },
      [&](char* buf, AmHeader& h, GetFlight& f) {
        const uint64_t n = pieces_fitting(slot_bytes, 0, row, total - next);
        const ofi::StridedWire w = shape_wire(s, src, s.src_stride, next, n);
        std::memcpy(buf, &h, sizeof h);
        std::memcpy(buf + sizeof h, &w, sizeof w);
        f.first = next;
        f.pieces = n;
        f.len = n * row;
        next += n;
        return sizeof h + sizeof w;
      },
      [&](const GetFlight& f, const char* d) {
        scatter_side(s.levels, s.count, s.dst_stride, f.first, f.pieces, l, d, row);
      });
  return true;
}

}  // namespace armci::transport

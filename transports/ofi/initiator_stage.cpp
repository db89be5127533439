// Staged accumulates and packed puts (ARMCI_OFI_STAGE_*): a message too big
// for one active message is built in a local slot, written by RMA into a
// slot the target node's agent lent this process, and announced by a small
// Staged notice once the write is delivered; the agent applies it and its
// reply frees the slot.  Two slots each side: while the agent applies one
// chunk the next is on the wire, so the bytes move at RMA bandwidth rather
// than at the rate of 16 KiB eager messages.  Gets of many small pieces go
// the other way: the agent gathers them into a slot, this process reads the
// slot by RMA and scatters it.
#include <cstring>

#include "common/log.hpp"
#include "transports/ofi/initiator.hpp"

namespace armci::transport {

bool OfiImpl::stage_ready(int node) {
  NodeState& s = nodes[static_cast<std::size_t>(node)];
  if (s.stage != 0) return s.stage > 0;
  s.stage = -1;  // until the agent says otherwise (another thread asking meanwhile gets no)
  uint32_t t = control_am(node, AmOp::StageQuery, 0, 0, 0, "staging query");
  wait_reply(t, "staging slots from another node's agent");
  const ReplyHeader r = pending[t].reply;
  free_token(t);
  if (r.status != 0 || r.value < ofi::kStageSlots || r.b < 2 * ofi::kAmMax) {
    verbose(2, "staging to node %d: its agent has no slots left (status %d); large accumulates go as "
            "active messages", node, r.status);
    return false;
  }
  if (stage_local.empty()) {
    stage_local.resize(ofi::kStageLocal * cfg.stage_slot);
    if (caps.mr_local)
      stage_local_mr = ep.register_memory(stage_local.data(), stage_local.size(), FI_READ | FI_WRITE,
                                           (uint64_t{1} << 32) - 4);
    stage_local_gen.assign(ofi::kStageLocal, 0);
    for (int i = static_cast<int>(ofi::kStageLocal) - 1; i >= 0; --i) stage_local_free.push_back(i);
  }
  s.stage_addr = r.a;
  s.stage_slot = r.b;
  s.stage_key = r.c;
  s.stage_free = (1u << ofi::kStageSlots) - 1;
  s.stage = 1;
  return true;
}

bool OfiImpl::staged(int node, AmOp op, int type, const void* scale, Pieces p) {
  if (stage_from == 0) return false;
  std::size_t total = 0;
  for (const Piece& q : p) total += q.bytes;
  if (total < stage_from || !stage_ready(node)) return false;
  NodeState& s = nodes[static_cast<std::size_t>(node)];
  const std::size_t slot_bytes = std::min(s.stage_slot, cfg.stage_slot);  // what one chunk may hold
  const std::size_t remote_slot_bytes = s.stage_slot;                   // the agent's slot stride
  struct Flight {
    int local;
    uint32_t gen;  // the local slot's completions before this write
    uint32_t token;
    int slot;
    std::size_t len;
  };
  // This call's chunks written but not yet announced, oldest first.
  thread_local std::vector<Flight> flight;
  thread_local std::vector<Piece> parts;
  flight.clear();
  std::size_t head = 0;  // first unannounced entry of flight
  std::size_t i = 0, done = 0;
  // With FI_ORDER_SAW the agent sees the notice only after the write's data:
  // announce at once.  Otherwise wait until the write is delivered.
  const bool saw = caps.has(FI_ORDER_SAW);
  auto announce_oldest = [&] {
    const Flight f = flight[head++];
    if (!saw)  // this write, not a later one that reused its local slot
      wait_until([&] { return stage_local_gen[static_cast<std::size_t>(f.local)] != f.gen; },
                 "a write into another node's staging slot");
    send_header(node, f.token, AmOp::Staged, 0, static_cast<uint64_t>(f.slot) * remote_slot_bytes, f.len,
                "staged notice");
  };
  while (i < p.size()) {
    // A written chunk holds a token until announced: announce it before
    // waiting for a token only its answer would free.
    if (head < flight.size() && (s.ams >= s.window || ams_total >= reply_bufs)) {
      announce_oldest();
      continue;
    }
    if (s.stage_free == 0 || stage_local_free.empty()) {
      // Announce what is written (its reply frees a slot), or wait for a
      // reply to earlier chunks.
      if (head < flight.size()) announce_oldest();
      else wait_until([&] { return s.stage_free != 0 && !stage_local_free.empty(); },
                      "a free staging slot at another node's agent");
      continue;
    }
    const int slot = __builtin_ctz(s.stage_free);
    s.stage_free &= ~(1u << slot);
    const int l = stage_local_free.back();
    stage_local_free.pop_back();
    // The token last: new_pending may let go of the lock, and the slots are
    // already ours.
    const uint32_t t = new_pending(node, AmOp::Staged);
    pending[t].stage_slot = slot;
    AmHeader h = pieces_header(op, type, scale, t);
    char* m = stage_local.data() + static_cast<std::size_t>(l) * cfg.stage_slot;
    const std::size_t len = fill_pieces(m, slot_bytes, h, p, i, done, parts);  // counts the bytes
    OpCtx* c = ctx(OpKind::StageWrite, node, nullptr, false);
    c->buf = l;
    const uint32_t gen = stage_local_gen[static_cast<std::size_t>(l)];
    iovec iov{m, len};
    void* desc = stage_local_mr ? fi_mr_desc(stage_local_mr) : nullptr;
    fi_rma_iov rio{s.stage_addr + static_cast<uint64_t>(slot) * remote_slot_bytes, len, s.stage_key};
    // With SAW the notice is ordered behind the data: the local slot is
    // free once sent.  Without, the notice waits for delivery.
    post_rma(true, node, &iov, &desc, &rio, 1, c, (saw ? FI_TRANSMIT_COMPLETE : FI_DELIVERY_COMPLETE) | FI_COMPLETION, 0);
    flight.push_back({l, gen, t, slot, len});
    if (saw) announce_oldest();
  }
  while (head < flight.size()) announce_oldest();
  return true;
}

bool OfiImpl::staged_get(int node, Pieces p) {
  if (stage_from == 0) return false;
  std::size_t total = 0;
  for (const Piece& q : p) total += q.bytes;
  if (total < stage_from || !stage_ready(node)) return false;
  NodeState& s = nodes[static_cast<std::size_t>(node)];
  const std::size_t slot_bytes = std::min(s.stage_slot, cfg.stage_slot);
  // A request holds an agent slot from its sending until its read is done,
  // and a local slot from the read's posting until its scatter: the agent
  // gathers the next chunk while this thread scatters the last one.
  struct Flight {
    uint32_t token;
    int slot;       // the agent's, -1 once our read of it completed
    int local = -1;  // ours, once the read is posted
    uint32_t gen = 0;  // the local slot's completed reads before ours
    std::size_t len = 0;
    std::vector<Piece> parts;
  };
  // Requests of this call not yet scattered, oldest first.  This thread's:
  // waiting may let go of the lock.
  thread_local std::vector<Flight> flight;
  thread_local std::vector<Piece> parts;
  flight.clear();
  std::size_t head = 0, i = 0, done = 0;
  auto read_done = [&](const Flight& f) {
    return f.local >= 0 && stage_local_gen[static_cast<std::size_t>(f.local)] != f.gen;
  };
  while (i < p.size() || head < flight.size()) {
    // Oldest first (so local slots go to a prefix of the flight): answered
    // requests get their read; completed reads give back the agent's slot.
    for (std::size_t k = head; k < flight.size(); ++k) {
      Flight& f = flight[k];
      if (f.local >= 0) {
        if (f.slot >= 0 && read_done(f)) {
          s.stage_free |= 1u << f.slot;
          f.slot = -1;
        }
        continue;
      }
      if (!pending[f.token].done || stage_local_free.empty()) break;
      wait_reply(f.token, "a staged get");  // answered: only checks the status
      free_token(f.token);
      f.local = stage_local_free.back();
      stage_local_free.pop_back();
      f.gen = stage_local_gen[static_cast<std::size_t>(f.local)];
      OpCtx* c = ctx(OpKind::StageRead, node, nullptr, false);
      c->buf = f.local;
      iovec iov{stage_local.data() + static_cast<std::size_t>(f.local) * cfg.stage_slot, f.len};
      void* desc = stage_local_mr ? fi_mr_desc(stage_local_mr) : nullptr;
      fi_rma_iov rio{s.stage_addr + static_cast<uint64_t>(f.slot) * s.stage_slot, f.len, s.stage_key};
      post_rma(false, node, &iov, &desc, &rio, 1, c, FI_COMPLETION, f.len);
    }
    const bool mine_in_flight = head < flight.size();
    if (i < p.size() && (!mine_in_flight || (s.stage_free != 0 && s.ams < s.window && ams_total < reply_bufs))) {
      if (s.stage_free == 0) {  // held by this process's other threads
        wait_until([&] { return s.stage_free != 0; }, "a free staging slot at another node's agent");
        continue;
      }
      const int slot = __builtin_ctz(s.stage_free);
      s.stage_free &= ~(1u << slot);
      const uint32_t t = new_pending(node, AmOp::StagedGet);  // last: may let go of the lock
      const int b = take_send_buf();
      AmHeader h = pieces_header(AmOp::StagedGet, 0, nullptr, t);
      h.arg0 = static_cast<uint64_t>(slot) * s.stage_slot;
      const std::size_t len = fill_pieces(send_buf(b), ofi::kAmMax, h, p, i, done, parts, slot_bytes);
      std::size_t bytes = 0;
      for (const Piece& q : parts) bytes += q.bytes;
      flight.push_back({t, slot, -1, 0, bytes, parts});
      send_am(node, b, len, "staged get request");
      continue;
    }
    const Flight& f = flight[head];
    if (f.local < 0) {
      wait_until([&] { return pending[flight[head].token].done && !stage_local_free.empty(); },
                 "another node's agent gathering a staged get");
    } else if (f.slot >= 0) {
      wait_until([&] { return read_done(flight[head]); }, "a read from another node's staging slot");
    } else {
      const char* d = stage_local.data() + static_cast<std::size_t>(f.local) * cfg.stage_slot;
      for (const Piece& q : f.parts) {
        std::memcpy(const_cast<void*>(q.local), d, q.bytes);
        d += q.bytes;
      }
      stage_local_free.push_back(f.local);
      ++head;
    }
  }
  flight.clear();
  return true;
}

}  // namespace armci::transport

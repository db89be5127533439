// Staged accumulates and packed puts (ARMCI_OFI_STAGE_*): a message too big
// for one active message is built in a local slot, written by RMA into a
// slot the target node's agent lent this process, and announced by a small
// Staged notice once the write is delivered; the agent applies it and its
// reply frees the slot.  Two slots each side: while the agent applies one
// chunk the next is on the wire, so the bytes move at RMA bandwidth rather
// than at the rate of 16 KiB eager messages.
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
      stage_local_mr = ep.register_memory(stage_local.data(), stage_local.size(), FI_WRITE, (uint64_t{1} << 32) - 4);
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

}  // namespace armci::transport

// Initiator plumbing: endpoint and pools, completions, ordering, retries.
#include "transports/ofi/initiator.hpp"

#include <rdma/fi_errno.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "common/log.hpp"
#include "transports/contract.hpp"

namespace armci::transport {

namespace {
constexpr std::size_t kCtxInitial = 512;
constexpr std::size_t kScatterInitial = 64;

}  // namespace

OfiImpl::OfiImpl(const OfiContext& c)
    : cfg(c), stats(*c.stats), ep(rma_only(c.endpoint)), caps(ep.caps), contexts(kCtxInitial),
      batches(c.coalesce, static_cast<int>(c.node_leader.size())) {
  const int nnodes = static_cast<int>(cfg.node_leader.size());
  nodes.resize(static_cast<std::size_t>(nnodes));
  std::vector<uint32_t> windows(static_cast<std::size_t>(nnodes));
  for (int n = 0; n < nnodes; ++n)  // the same budget the node's agent computes
    windows[static_cast<std::size_t>(n)] =
        ofi::am_budget(caps.rx_size, cfg.procs_outside[static_cast<std::size_t>(n)]).window;
  am.set_windows(std::move(windows));
  segs.resize(nnodes);
  rma.configure(nodes.size(), cfg.inject_max ? std::min<std::size_t>(caps.inject, cfg.inject_max) : caps.inject,
                cfg.pack_below);
  eagain_timeout = cfg.eagain_timeout;
  Stager::Settings st;
  st.from = cfg.stage_from && cfg.stage_slot >= 2 * ofi::kAmMax ? cfg.stage_from : 0;
  st.pieces_below = cfg.stage_pieces_below;
  // A staged write that is its own notice is applied when the agent sees
  // its completion, outside the message stream: only where the provider
  // keeps writes and sends in issue order both ways (the agent then meets
  // completions in that order) does it stand in for a notice message.
  st.cq_data = cfg.stage_cq_data && caps.cq_data && caps.has(FI_ORDER_SAW | FI_ORDER_WAW | FI_ORDER_WAS);
  // A write back announces only itself: no ordering needed.
  st.push = cfg.stage_cq_data && caps.cq_data;
  // Polled messages need a write to land in the agent's own progress
  // call, in stream order (ofi::kInboxBytes): tcp, one NIC.
  st.inbox = cfg.polled_am && cfg.rail_domains.empty() && ofi::polled_writes_in_order(caps);
  stager.configure(st, nodes.size());
  am.send_mem.resize(kAmSendBufs * ofi::kAmMax);
  if (caps.rx_size > 0 && caps.rx_size < kReplyBufs) am.reply_bufs = static_cast<uint32_t>(caps.rx_size);
  am.recv_mem.resize(std::size_t{am.reply_bufs} * ofi::kAmMax);
  if (caps.mr_local) {
    am.send_mr = ep.register_memory(am.send_mem.data(), am.send_mem.size(), FI_SEND | FI_WRITE | FI_READ,
                                 kLocalKeyBase - 1);
    am.recv_mr = ep.register_memory(am.recv_mem.data(), am.recv_mem.size(), FI_RECV, kLocalKeyBase - 2);
  }
  for (int i = kAmSendBufs - 1; i >= 0; --i) am.free_send.push_back(i);
  am.make_entries(kScatterInitial);
  if (caps.atomics) probe_atomics();
  ordering = OrderingPlan(caps, cfg.write_flush);
  am.quiet_signals = caps.has(FI_ORDER_SAS);
  // A message may reach a process before it posts the receive (a sender
  // runs ahead): only providers that buffer unexpected messages without a
  // hard limit may carry them; the sockets provider stalls for good when its
  // buffer fills (tests/checks/flow_check.sh).  Sends read copies or the caller's
  // memory: without FI_MR_LOCAL only.
  // They get an endpoint of their own: on the RMA endpoint, the tagged
  // capability and the connections to other processes made every put and
  // fence pay (1 MiB put + fence 290 vs 200 us, 8 B 12.7 vs 8.8 us, one node
  // pair, perf/armci_bench).
  const bool unexpected_ok = caps.provider.rfind("sockets", 0) != 0;
  if (cfg.direct_messages && cfg.endpoint.tagged && unexpected_ok && !caps.mr_local && cfg.peer_address &&
      cfg.nprocs > 0) {
    ofi::EndpointOptions o = cfg.endpoint;
    o.role = "initiator messages";
    peers.ep = std::make_unique<ofi::Endpoint>(o);
    if (!peers.ep->caps.tagged || peers.ep->caps.mr_local) peers.ep.reset();
  }
  peers.on = peers.ep != nullptr;
  peers.addr.assign(static_cast<std::size_t>(std::max(cfg.nprocs, 0)), FI_ADDR_UNSPEC);
  open_rails();
}

// An endpoint on every further NIC, before start-up publishes addresses:
// the agents answer a process on its home NIC, so each needs all of them.
void OfiImpl::open_rails() {
  rails.first = &ep;
  if (!caps.mr_local)  // local descriptors would be needed per NIC
    for (const std::string& d : cfg.rail_domains) {
      ofi::EndpointOptions o = rma_only(cfg.endpoint);
      o.domain = d;
      o.role = "initiator rail";
      auto e = std::make_unique<ofi::Endpoint>(o);
      if (e->caps.mr_local) break;
      rails.more.push_back(std::move(e));
    }
}

// Once, before the first operation: reply receives wait on the home NIC.
void OfiImpl::place(std::size_t home) {
  // Native atomics stay atomic only among themselves on one NIC.
  rails.home = native.any() || home >= rails.count() ? 0 : home;
  rails.pending.assign(rails.count(), 0);
  rails.moved.assign(rails.count(), ofi::Rails::Clock::now());
  for (int i = 0; i < static_cast<int>(am.reply_bufs); ++i) am.post_reply_recv(i);
  // Flushed writes are complete at a fence only behind a read on their own
  // NIC: they are never split.
  if (rails.many() && !ordering.flush_writes)
    rails.stripe_from = std::max<std::size_t>(cfg.stripe_from, 4096 * rails.count());
}


void OfiImpl::account_local(int node, Request* req) {
  if (req) ++req->pending;
  else ++nodes[static_cast<std::size_t>(node)].implicit;
}

void OfiImpl::local_done(int node, Request* req) {
  if (req) --req->pending;
  else --nodes[static_cast<std::size_t>(node)].implicit;
}

void OfiImpl::post_retry(Retry op, ssize_t rc, int node, const char* what) {
  // First contact (rxm connects lazily) or a full queue: drive progress and
  // retry, but not forever.  Between tries the core is left as in any wait
  // (yield, then sleep): the peer that must accept the connection or drain
  // the queue may share it, and a loop that only yielded kept it off for the
  // whole timeout when the kernel grouped the processes by session
  // (autogroup; Slurm's slurmd on namespace hosts, one group each).
  Backoff backoff("ARMCI", what);
  for (unsigned tries = 0;; ++tries, rc = op()) {
    if (rc == 0) {
      stats.eagain_wait(what, tries, backoff.waited());
      return;
    }
    if (rc != -FI_EAGAIN)
      fatal("ARMCI", "%s to node %d (agent: rank %d): %s", what, node,
            leader(node), ofi::fi_error(what, rc).c_str());
    if ((tries & 63) == 63 && eagain_timeout > 0 && backoff.waited() > eagain_timeout)
      fatal("ARMCI", "%s to node %d (agent: rank %d) kept returning -FI_EAGAIN for %.0f s: the "
            "peer is unreachable or not making progress (ARMCI_OFI_EAGAIN_TIMEOUT)",
            what, node, leader(node), backoff.waited());
    ++stats.eagain_retries;
    if (progress()) backoff.reset();
    else unlocked([&] { backoff.pause(); });
  }
}

// Messages between processes: only their sends and receives complete here.
bool OfiImpl::progress_messages() {
  fi_cq_data_entry e[16];
  fi_cq_err_entry err;
  bool any = false;
  for (ssize_t n = 16; n == 16;) {
    n = peers.ep->read_cq(e, 16, &err, "ARMCI");
    if (n < 0) {
      auto* c = static_cast<OpCtx*>(err.op_context);
      if (c && c->kind == OpKind::MsgRecv && err.err == FI_ETRUNC) {  // the receiver reports it
        msg_done(c, err.len, true);
        n = 16;
        continue;
      }
      fatal("ARMCI", "%s between processes failed: %s (provider: %s)",
            c && c->kind == OpKind::MsgRecv ? "message receive" : "message", fi_strerror(err.err),
            fi_cq_strerror(peers.ep->cq, err.prov_errno, err.err_data, nullptr, 0));
    }
    for (ssize_t i = 0; i < n; ++i) msg_done(static_cast<OpCtx*>(e[i].op_context), e[i].len, false);
    any = any || n > 0;
  }
  return any;
}

bool OfiImpl::progress() {
  bool any = drain_cq(rails.home);
  if (stager.poll_answers()) any = true;
  for (std::size_t k = 0; k < rails.count(); ++k)
    if (k != rails.home && rails.due(k) && drain_cq(k)) any = true;
  if (peers.ep && peers.due() && progress_messages()) any = true;
  return any;
}

// The home NIC completes everything; the others, pieces of split transfers.
bool OfiImpl::drain_cq(std::size_t nic) {
  ofi::Endpoint& e = rails.nic(nic);
  fi_cq_data_entry ev[16];
  fi_cq_err_entry err;
  bool any = false;
  for (;;) {
    const ssize_t n = e.read_cq(ev, 16, &err, "ARMCI");
    if (n == 0) return any;
    if (n < 0) {
      auto* c = static_cast<OpCtx*>(err.op_context);
      const char* kinds[] = {"RMA write", "RMA read", "active message", "reply receive", "atomic",
                             "staging write", "staging read", "message", "message receive"};
      int node = c ? c->node : -1;
      fatal("ARMCI", "%s to node %d (agent: rank %d)%s%s failed: %s (provider: %s)",
            c ? kinds[static_cast<int>(c->kind)] : "operation", node, leader(node),
            rails.many() ? " over NIC " : "", rails.many() ? e.caps.domain.c_str() : "", fi_strerror(err.err),
            fi_cq_strerror(e.cq, err.prov_errno, err.err_data, nullptr, 0));
    }
    any = true;
    for (ssize_t i = 0; i < n; ++i) {
      if (ev[i].flags & FI_REMOTE_WRITE) {  // its op_context is not ours
        if (ev[i].flags & FI_REMOTE_CQ_DATA) am.on_push(ev[i].data);
        continue;
      }
      auto* c = static_cast<OpCtx*>(ev[i].op_context);
      if (c->kind == OpKind::ReplyRecv) {
        int b = c->buf;
        am.on_reply(am.recv_buf(b), ev[i].len);
        release(c);
        am.post_reply_recv(b);
      } else {
        complete(c);
      }
    }
    // A short batch drained the queue: another read would only cost one
    // more pass of the provider's progress engine (a system call with rxm).
    if (n < 16) return true;
  }
}

void OfiImpl::complete(OpCtx* c) {
  NodeState& s = nodes[static_cast<std::size_t>(c->node)];
  RmaCounts& r = rma.counts(c->node);
  if (c->rail >= 0) rails.piece_done(static_cast<std::size_t>(c->rail));
  switch (c->kind) {
    case OpKind::Write: --r.writes; break;
    case OpKind::Read:
      --r.reads;
      if (c->copy_out) std::memcpy(c->copy_out, am.send_buf(c->buf), c->len);
      break;
    case OpKind::Atomic:
      --s.atomics;
      if (c->copy_out) std::memcpy(c->copy_out, am.send_buf(c->buf) + ofi::kAmMax / 2, c->len);
      break;
    case OpKind::StageWrite:
      stager.write_done(c->node, c->buf);
      c->buf = -1;  // a staging slot, not a send buffer
      break;
    case OpKind::StageRead:  // the staged get that posted it scatters and frees the slot
      --r.reads;
      stager.read_done(c->buf);
      c->buf = -1;
      break;
    case OpKind::AmSend:
    case OpKind::ReplyRecv:
    case OpKind::MsgSend:
    case OpKind::MsgRecv: break;
  }
  if (c->counts_local) {
    if (c->req) --c->req->pending;
    else --s.implicit;
  }
  if (c->buf >= 0) am.free_send.push_back(c->buf);
  release(c);
}

void OfiImpl::order_only(int node, OpClass next) {
  const uint8_t m = ordering.drains(next);
  NodeState& s = nodes[static_cast<std::size_t>(node)];
  RmaCounts& r = rma.counts(node);
  if (__builtin_expect(r.striped, 0)) {
    wait_until([&] { return r.idle(); }, "a transfer split across NICs (ordering)");
    r.striped = false;
  }
  auto drain = [&](uint8_t bit, const uint32_t& count, const char* what) {
    if ((m & bit) && count) wait_until([&] { return count == 0; }, what);
  };
  drain(OrderingPlan::kDrainAtomics, s.atomics, "earlier atomics (ordering)");
  if ((m & OrderingPlan::kDrainAms) && am.window(node).quiet_fenced) am.flush_quiet(node);
  drain(OrderingPlan::kDrainWrites, r.writes, "earlier writes (ordering)");
  drain(OrderingPlan::kDrainReads, r.reads, "earlier reads (ordering)");
  if ((m & OrderingPlan::kDrainAms) && am.unanswered(node))
    wait_until([&] { return am.unanswered(node) == 0; }, "earlier active messages (ordering)");
}

bool OfiImpl::lookup(int node, uintptr_t addr, const char* call) {
  (void)call;
  if (segs.find(node, addr)) return true;
  // Not exchanged with us yet: ask the node's agent (cached afterwards).
  ++stats.seg_queries;
  // One question per NIC in use for its key there (a segment nobody
  // exchanged with us, asked once).
  ofi::RemoteSegment seg{};
  for (std::size_t k = 0; k < rails.count(); ++k) {
    const uint32_t t = am.control(node, AmOp::SegQuery, 0, addr, k, "segment query");
    am.wait_reply(t, "a segment description from another node's agent");
    const ReplyHeader r = am.pending[t].reply;
    am.close(t);
    if (r.status != 0) return false;
    seg.off = r.a;
    seg.size = r.b;
    seg.keys[k] = r.c;
  }
  segs.add(node, seg);
  return true;
}

void OfiImpl::remote(const Target& at, uintptr_t addr, std::size_t& len, uint64_t& raddr, uint64_t& key,
                     const char* what) {
  if (__builtin_expect(at.holds(addr), 1)) {
    len = std::min<std::size_t>(len, at.hi - addr);
    raddr = at.nic_lo + (addr - at.lo);
    key = at.key;
    return;
  }
  ++stats.key_searches;
  Target seg = segment(at.node, addr);
  if (!seg.keyed) {
    if (!lookup(at.node, addr, what) || !(seg = segment(at.node, addr)).keyed)
      fatal("ARMCI", "%s: address %p is in no heap segment of node %d", what,
            reinterpret_cast<void*>(addr), at.node);
  }
  len = std::min<std::size_t>(len, seg.hi - addr);
  raddr = seg.nic_lo + (addr - seg.lo);
  key = seg.key;
}

Target OfiImpl::segment(int node, uintptr_t addr) const {
  Target t;
  t.node = node;
  const ofi::RemoteSegment* s = segs.find(node, addr);
  if (!s) return t;
  t.lo = segs.base(node) + s->off;
  t.hi = t.lo + s->size;
  t.key = s->keys[rails.home];
  t.nic_lo = caps.virt_addr ? t.lo : 0;
  t.keyed = true;
  return t;
}

// ---------------------------------------------------------------- Ofi API
static_assert(Transport<Ofi>);

Ofi::Ofi(const OfiContext& ctx) : impl_(std::make_unique<OfiImpl>(ctx)) { impl_->start_timer(); }
Ofi::~Ofi() { impl_->timer.stop(); }
std::string Ofi::address() const { return impl_->ep.name(); }
std::vector<std::string> Ofi::rail_addresses() const {
  std::vector<std::string> v;
  for (auto& e : impl_->rails.more) v.push_back(e->name());
  return v;
}
std::string Ofi::message_address() const { return impl_->peers.ep ? impl_->peers.ep->name() : std::string(); }

void Ofi::connect(const std::vector<std::string>& agents, const std::vector<std::vector<std::string>>& rail_agents,
                  std::size_t home) {
  OfiImpl& m = *impl_;
  m.ep.insert(agents, "node agent");
  m.rails.more.resize(std::min(m.rails.more.size(), rail_agents.size()));  // as many as every node has
  for (std::size_t r = 0; r < m.rails.more.size(); ++r) m.rails.more[r]->insert(rail_agents[r], "node agent rail");
  m.place(home);
}

void OfiImpl::check_rails() {
  double quiet = 0;
  const double limit = wait_policy().timeout_s / 2;
  const int k = limit > 0 ? rails.stalled(limit, &quiet) : -1;
  if (k >= 0)
    fatal("ARMCI", "NIC %s: %u piece(s) of transfers split across NICs made no progress for %.0f s (half of "
          "ARMCI_TIMEOUT); is its link down? (ARMCI_NICS leaves it out)",
          rails.name(static_cast<std::size_t>(k)).c_str(), rails.pending[static_cast<std::size_t>(k)], quiet);
}

std::vector<std::string> Ofi::rail_names() const {
  std::vector<std::string> v;
  for (std::size_t k = 0; k < impl_->rails.count(); ++k) v.push_back(impl_->rails.name(k));
  return v;
}
std::size_t Ofi::home_nic() const { return impl_->rails.home; }

void Ofi::learn_node(int node, uintptr_t base, uint64_t off, uint64_t size, const uint64_t* keys) {
  {
    OfiImpl::Guard g(*impl_);
    impl_->segs.set_base(node, base);
  }
  learn_segment(node, 0, off, size, keys);
}

void Ofi::learn_segment(int node, uint32_t index, uint64_t off, uint64_t size, const uint64_t* keys) {
  (void)index;
  OfiImpl::Guard g(*impl_);
  ofi::RemoteSegment s{off, size, {}};
  std::copy(keys, keys + memory::kMaxNics, s.keys.begin());
  impl_->segs.add(node, s);
}

Target Ofi::resolve(int node, uintptr_t base, std::size_t len) {
  OfiImpl::Guard g(*impl_);
  Target t = impl_->segment(node, base);
  // Not within one segment: left unkeyed, looked up per piece.
  if (!t.keyed || len > t.hi - base) return Target{.node = node};
  t.nic_lo += base - t.lo;
  t.lo = base;
  t.hi = base + len;
  return t;
}

void Ofi::set_threaded(bool on) { impl_->lock.set_app_threads(on); }

void OfiImpl::fence(int node) {
  flush_batch(node);
  const NodeState& s = nodes[static_cast<std::size_t>(node)];
  const RmaCounts& r = rma.counts(node);
  if (am.window(node).quiet_fenced) am.flush_quiet(node);
  if (r.unflushed) post_flush_read(node);
  wait_until([&] { return r.writes == 0 && am.unanswered(node) == 0 && s.atomics == 0 && (!ordering.flush_writes || r.reads == 0); },
             "remote completion (ARMCI_Fence)");
}

void OfiImpl::post_flush_read(int node) {
  rma.counts(node).unflushed = 0;
  ++stats.flush_reads;
  const ofi::RemoteSegment* seg0 = segs.first(node);
  if (!seg0) fatal("ARMCI", "flush of writes to node %d: no segment of its heap is known", node);
  const Target at = segment(node, segs.base(node) + seg0->off);
  std::size_t len = 8;
  uint64_t raddr, key;
  remote(at, at.lo, len, raddr, key, "flush read");
  OpCtx* c = ctx(OpKind::Read, node, nullptr, false);
  c->buf = am.take_send_buf();  // freed when the read completes
  void* desc = am.send_mr ? fi_mr_desc(am.send_mr) : nullptr;
  iovec iov{am.send_buf(c->buf), len};
  fi_rma_iov rio{raddr, len, key};
  rma.post({Dir::Get, node, &iov, &desc, 1, &rio, 0, c, FI_COMPLETION, 0});
}

void OfiImpl::fence_all() {
  // Every batch, Flush and flush read on its way before the first wait: one
  // round trip, not one per node.
  flush_batches();
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n)
    if (rma.counts(n).unflushed) post_flush_read(n);
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n)
    if (am.window(n).quiet_fenced) am.flush_quiet(n);
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) fence(n);
}

void OfiImpl::wait_node(int node) {
  flush_batch(node);
  NodeState& s = nodes[static_cast<std::size_t>(node)];
  wait_until([&] { return s.implicit == 0; }, "implicit non-blocking operations");
}

void Ofi::fence(int node) {
  OfiImpl::Guard g(*impl_);
  impl_->fence(node);
}

void Ofi::fence_all() {
  OfiImpl::Guard g(*impl_);
  impl_->fence_all();
}

void Ofi::quiesce() {
  OfiImpl::Guard g(*impl_);
  impl_->flush_batches();
  for (int n = 0; n < static_cast<int>(impl_->nodes.size()); ++n) impl_->am.flush_quiet(n);
  impl_->fence_all();  // also waits for those Flushes: each counts in its node's ams
  impl_->wait_until([&] { return impl_->peers.sends == 0; }, "messages to other processes");
}

void Ofi::wait(Request& r) {
  OfiImpl::Guard g(*impl_);
  if (r.pending.load(std::memory_order_acquire) != 0) impl_->flush_batches();  // its gets may be in one
  impl_->wait_until([&] { return r.pending.load(std::memory_order_acquire) == 0; }, "a non-blocking operation");
}

bool Ofi::test(Request& r) {
  OfiImpl::Guard g(*impl_);
  if (r.pending.load(std::memory_order_acquire) != 0) impl_->flush_batches();
  impl_->progress();
  return r.pending.load(std::memory_order_acquire) == 0;
}

void Ofi::wait_node(int node) {
  OfiImpl::Guard g(*impl_);
  impl_->wait_node(node);
}

void Ofi::wait_all() {
  OfiImpl::Guard g(*impl_);
  for (int n = 0; n < static_cast<int>(impl_->nodes.size()); ++n) impl_->wait_node(n);
}

void Ofi::progress() {
  OfiImpl::Guard g(*impl_);
  impl_->flush_aged();
  impl_->progress();
}

void Ofi::flush() {
  OfiImpl::Guard g(*impl_);
  impl_->flush_batches();
}

bool OfiImpl::rma_in_flight() const {
  if (batches.open_count() || peers.sends) return true;  // progress() sends batches once due
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const NodeState& s = nodes[n];
    if (!rma.counts(static_cast<int>(n)).idle() || am.unanswered(static_cast<int>(n)) || s.atomics || s.implicit ||
        stager.writing(static_cast<int>(n)))
      return true;
  }
  return !am.sends_idle();  // sends not yet complete
}

bool Ofi::busy() const {
  OfiImpl::Guard g(*impl_);
  return impl_->rma_in_flight();
}
std::string Ofi::describe() const {
  std::string d = impl_->caps.describe();
  d += impl_->ordering.flush_writes ? ", writes flushed at fences" : ", writes delivery-complete";
  if (impl_->rails.many()) {
    d += "\n  NICs in use:";
    for (const std::string& n : rail_names()) d += " " + n;
    d += "; this process's own traffic on " + impl_->rails.name(impl_->rails.home);
    if (!impl_->ordering.flush_writes)
      d += "; transfers from " + std::to_string(impl_->rails.stripe_from) + " bytes split across them";
  }
  if (impl_->caps.atomics) d += "\n  native atomics: " + impl_->native.describe();
  return d;
}
std::size_t Ofi::key_table_entries() const { return impl_->segs.entries(); }

}  // namespace armci::transport

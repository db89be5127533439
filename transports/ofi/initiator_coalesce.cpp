// Coalesced small operations (transports/ofi/coalescer.hpp): appending them
// to a node's batch, sending the batch, and starting the timer that sends
// a batch nobody else does (transports/ofi/coalesce_timer.hpp).
#include <cstring>

#include "common/log.hpp"
#include "common/wait.hpp"
#include "transports/acc_kernels.hpp"
#include "transports/ofi/initiator.hpp"

namespace armci::transport {

using ofi::BatchKind;

bool OfiImpl::aggregate(const Request* req) const { return req && req->aggregate; }

// Whether an operation of len bytes to node joins a batch.  Non-blocking
// ones do (more usually follow before their wait).  A blocking one (its
// request says so; accumulates are blocking by contract) does only while a batch is
// open or something of ours to that node is still on its way: to an idle
// node it leaves at once, as without coalescing, so a lone blocking put or
// get keeps its latency and opens no batch for the timer to watch (the
// Nagle rule of TCP).
bool OfiImpl::joins_batch(int node, std::size_t len, const Request* req, bool blocking) const {
  if (aggregate(req)) return batches.takes(len, true);
  if (!batches.takes(len, false)) return false;
  if (batches.is_open(node) || !blocking) return true;
  return on_its_way(node);
}

bool OfiImpl::on_its_way(int node) const {
  return !rma.counts(node).idle() || am.unanswered(node) || nodes[static_cast<std::size_t>(node)].atomics ||
         stager.writing(node);
}

// The batch that takes `bytes` more of kind k for node: the open one, or a
// fresh one once the open one is sent.  Marks it opened.
Batch& OfiImpl::batch_for(int node, BatchKind k, std::size_t len) {
  Batch* b = &batches.open(node);
  // Staged gets leave after the records: a write must not pass them.
  while (!b->fits(k, len) || (k != BatchKind::Get && !b->staged().empty())) {
    flush_batch(node);  // may let go of the lock: another thread may have filled the next one
    b = &batches.open(node);
  }
  if (b->count() == 0) b->first_target = Target{.node = node};  // callers that know the allocation say so
  mark_opened(node, *b);
  return *b;
}

// A batch's first operation (record or staged get) starts its age.
void OfiImpl::mark_opened(int node, const Batch& b) {
  if (!b.empty()) return;
  const int64_t now = steady_ns();
  batches.opened(node, now);
  timer.opened(now);
}

bool OfiImpl::coalesce_put(int node, const Target& at, const void* src, uintptr_t dst, std::size_t n,
                           Request* req) {
  if (!joins_batch(node, n, req, req && req->blocking)) return false;
  Batch& b = batch_for(node, BatchKind::Put, n);
  if (b.count() == 0) b.first_target = at;
  b.put(dst, src, n);
  stats.remote_bytes += n;
  ++stats.coalesced;
  return true;
}

bool OfiImpl::coalesce_get(int node, const Target& at, uintptr_t src, void* dst, std::size_t n, Request* req) {
  if (stage_get(node, at, src, dst, n, req)) return true;
  if (!joins_batch(node, n, req, req && req->blocking)) return false;
  Batch& b = batch_for(node, BatchKind::Get, n);
  if (b.count() == 0) b.first_target = at;
  b.get(src, dst, n, req);
  account_local(node, req);
  ++stats.coalesced;
  return true;
}

// A get too big for a batch's reply waits in the batch only behind
// something already on its way to that node: alone it leaves at once as a
// read and overlaps whatever the caller does next.  Behind others (a
// window of them, the usual case) the batch fetches the waiting ones in
// one staged round: 16 gets of 8 KiB across nodes on tcp;ofi_rxm took
// 1.6-1.8 us each that way against 8.7-9.8 us as reads (perf/README.md).
bool OfiImpl::stage_get(int node, const Target& at, uintptr_t src, void* dst, std::size_t n, Request* req) {
  const CoalesceConfig& c = batches.config();
  if (!c.on || n <= c.op_max || n > c.get_max || aggregate(req)) return false;
  if (!batches.is_open(node) && !on_its_way(node)) return false;
  if (!stager.takes_gets(node)) return false;
  Batch* b = &batches.open(node);
  while (b->staged_bytes() + n > Batch::kStagedRoom) {
    flush_batch(node);
    b = &batches.open(node);
  }
  mark_opened(node, *b);
  b->staged_get(at, src, dst, n, req);
  account_local(node, req);
  ++stats.coalesced;
  return true;
}

bool OfiImpl::coalesce_acc(int node, int type, const void* scale, Pieces p) {
  std::size_t total = 0;
  for (const Piece& q : p) total += q.bytes;
  if (!joins_batch(node, total, nullptr, true)) return false;
  const std::size_t scale_len = acc_scale_size(type);
  for (const Piece& q : p) {
    Batch& b = batch_for(node, BatchKind::Acc, q.bytes);
    b.acc(type, scale, scale_len, q.remote, q.local, q.bytes);
    stats.remote_bytes += q.bytes;
    ++stats.coalesced;
  }
  return true;
}

bool OfiImpl::coalesce_pieces(Dir dir, const Target& at, Pieces p, Request* req) {
  const int node = at.node;
  const bool is_write = dir == Dir::Put;
  std::size_t total = 0;
  for (const Piece& q : p) total += q.bytes;
  if (!joins_batch(node, total, req, req && req->blocking)) return false;
  for (const Piece& q : p) {
    Batch& b = batch_for(node, is_write ? BatchKind::Put : BatchKind::Get, q.bytes);
    if (b.count() == 0) b.first_target = at;
    if (is_write) {
      b.put(q.remote, q.local, q.bytes);
      stats.remote_bytes += q.bytes;
    } else {
      b.get(q.remote, const_cast<void*>(q.local), q.bytes, req);
      account_local(node, req);
    }
    ++stats.coalesced;
  }
  return true;
}

// Sends node's open batch.  One flush per node at a time: a second thread
// waits for the first, so batches leave in the order they were opened.
void OfiImpl::flush_batch(int node) {
  if (batches.sending(node)) wait_until([&] { return !batches.sending(node); }, "another thread's batch");
  Batch& open = batches.open(node);
  if (open.empty()) return;
  batches.sending(node) = true;
  batches.closed(node);
  std::swap(open, batches.out(node));  // later appends start a new batch
  Batch& b = batches.out(node);
  if (b.count() > 1 || (b.count() == 1 && !send_alone(node, b))) send_records(node, b);
  // Staged gets leave once this flush is over (they wait for their data,
  // and a read they fall back to may flush the next batch).
  std::vector<Batch::Staged> staged;
  if (!b.staged().empty()) staged = b.staged();
  b.clear();
  batches.sending(node) = false;
  if (!staged.empty()) send_staged_gets(node, staged);
}

// The batch's records as one Batch active message.
void OfiImpl::send_records(int node, Batch& b) {
  stager.lend_inbox(node);
  order_only(node, b.only_gets() ? OpClass::AmGet : OpClass::Am);
  const uint32_t t = am.new_pending(node, AmOp::Batch);
  const int buf = am.take_send_buf();
  AmHeader h{};
  h.op = static_cast<uint16_t>(AmOp::Batch);
  h.origin = static_cast<uint32_t>(cfg.me);
  h.token = t;
  h.npieces = b.count();
  h.payload = static_cast<uint32_t>(b.bytes());
  char* m = am.send_buf(buf);
  std::memcpy(m, &h, sizeof h);
  std::memcpy(m + sizeof h, b.records(), b.bytes());
  PendingAm& p = am.pending[t];
  for (const Batch::Get& g : b.gets()) {
    p.scatter.push_back({g.dst, 0, g.len});
    p.scatter_reqs.push_back(g.req);
  }
  ++stats.batches;
  am.send(node, buf, sizeof h + b.bytes(), "batch of small operations");
}

// A batch's staged gets: gathered by the agent and written back in one
// round, complete on return.  Where the agent cannot take them (too few
// bytes together to be worth a slot, no slots), or a read serves them
// sooner (one get alone, with no message of ours to that node unanswered
// or fenced signal unflushed, which a read would wait for), each is the
// read it would have been.
// A read is posted before its get stops counting as waiting here: the post
// may let go of the lock, and the owner must not see its request complete.
void OfiImpl::send_staged_gets(int node, const std::vector<Batch::Staged>& staged) {
  std::vector<Piece> p;
  p.reserve(staged.size());
  for (const Batch::Staged& g : staged) p.push_back({g.dst, g.remote, g.len});
  order_only(node, OpClass::AmGet);
  const bool read_sooner = staged.size() == 1 && am.unanswered(node) == 0 && !am.window(node).quiet_fenced;
  const bool done = !read_sooner && stager.get_pieces(node, p);
  for (const Batch::Staged& g : staged) {
    if (!done) rma.transfer(Dir::Get, g.at, g.dst, g.remote, g.len, g.req);
    local_done(node, g.req);
  }
  if (done) stats.staged_gets += staged.size();
}

// A batch of one put or get leaves as the RMA it stands for: cheaper than
// an active message the agent must handle (its request was counted when it
// was appended); one accumulate as an AccOne where that fits an inject,
// else as an Acc (no record header to decode; either may go polled).
bool OfiImpl::send_alone(int node, Batch& b) {
  const ofi::BatchRecord r = b.first();
  const auto kind = static_cast<BatchKind>(r.kind);
  if (kind == BatchKind::Acc) {
    order_only(node, OpClass::Am);
    const char* scale = b.first_data();
    const Piece q{scale + ofi::kBatchScale, r.addr, r.len};
    if (!am.acc_one(node, r.type, scale, q)) am.pieces(node, AmOp::Acc, r.type, scale, Pieces(&q, 1), nullptr);
    return true;
  }
  const bool is_write = kind == BatchKind::Put;
  order_only(node, is_write ? OpClass::Write : OpClass::Read);
  std::size_t len = r.len;
  uint64_t raddr, key;
  remote(b.first_target, r.addr, len, raddr, key, is_write ? "put" : "get");
  if (len != r.len) return false;  // crosses a segment: the agent takes it as it is
  const Batch::Get* g = is_write ? nullptr : &b.gets().front();
  OpCtx* c = ctx(is_write ? OpKind::Write : OpKind::Read, node, g ? g->req : nullptr, !is_write);
  void* local = g ? g->dst : const_cast<char*>(b.first_data());
  void* desc = g ? rma.local_desc(local, len) : nullptr;
  uint64_t flags = ordering.rma_flags(is_write);
  if (is_write && len <= rma.inject_limit()) {
    flags |= FI_INJECT;
  } else if (is_write || (caps.mr_local && !desc)) {
    // The batch's memory is reused at once: through a send buffer.
    c->buf = am.take_send_buf();
    local = am.send_buf(c->buf);
    desc = am.send_mr ? fi_mr_desc(am.send_mr) : nullptr;
    if (is_write) {
      std::memcpy(local, b.first_data(), len);
    } else {
      c->copy_out = g->dst;
      c->len = len;
      ++stats.bounce_copies;
    }
  }
  iovec iov{local, len};
  fi_rma_iov rio{raddr, len, key};
  rma.post({is_write ? Dir::Put : Dir::Get, node, &iov, &desc, 1, &rio, 0, c, flags, is_write ? 0 : len});
  return true;
}

void OfiImpl::flush_batches() {
  if (!batches.open_count()) return;
  for (int n = 0; n < batches.nodes(); ++n)
    if (batches.is_open(n)) flush_batch(n);
}

int OfiImpl::flush_aged(int64_t opened_before_ns) {
  int sent = 0;
  for (int n = 0; n < batches.nodes() && batches.open_count(); ++n)
    if (batches.aged(n, opened_before_ns)) {
      flush_batch(n);
      ++sent;
    }
  return sent;
}

void OfiImpl::flush_aged() {
  if (batches.open_count()) flush_aged(steady_ns() - batches.config().delay_us * 1000);
}

// ---------------------------------------------------------------- timer
void OfiImpl::start_timer() {
  if (!batches.config().on || batches.config().delay_us <= 0 || batches.nodes() < 2) return;
  lock.set_timer(true);  // before the first tick: the timer sends under the initiator's lock
  timer.start(batches.config().delay_us * 1000,
              {.oldest_open = [this] { return batches.oldest_open(); },
               .send_due =
                   [this](int64_t before) {
                     if (!lock.visitor_try_lock()) return false;
                     stats.timer_flushes += static_cast<uint64_t>(flush_aged(before));
                     lock.visitor_unlock();
                     return true;
                   }});
}

}  // namespace armci::transport

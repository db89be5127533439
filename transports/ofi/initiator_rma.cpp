// Puts and gets as RMA on the target node's registration of the segment:
// inject for small writes, iovec batches for strided and vector shapes with
// large pieces, and packed active messages for many small pieces.
#include <rdma/fi_errno.h>

#include <cstring>

#include "common/log.hpp"
#include "transports/ofi/initiator.hpp"

namespace armci::transport {

void RmaChannel::post(const Post& p) {
  fi_msg_rma msg{};
  msg.data = p.cq_data;
  msg.msg_iov = p.iov;
  msg.desc = p.desc;
  msg.iov_count = p.count;
  msg.addr = static_cast<fi_addr_t>(p.node);
  msg.rma_iov = p.rma;
  msg.rma_iov_count = p.rma_count ? p.rma_count : p.count;
  msg.context = &p.c->fi;
  RmaCounts& s = counts(p.node);
  fid_ep* e = (p.nic < 0 ? core_.own() : core_.rails.nic(static_cast<std::size_t>(p.nic))).ep;
  if (p.dir == Dir::Put) {
    if (p.c->kind == OpKind::StageWrite) core_.stager.write_posted(p.node);
    else ++s.writes;
    if (core_.ordering.flush_writes && p.c->kind == OpKind::Write) ++s.unflushed;
    core_.post([&] { return fi_writemsg(e, &msg, p.flags); }, p.node, "fi_writemsg");
  } else {
    ++s.reads;
    core_.post([&] { return fi_readmsg(e, &msg, p.flags); }, p.node, "fi_readmsg");
  }
  core_.stats.remote_bytes += p.bytes;
  ++core_.stats.remote_ops;
}

std::size_t RmaChannel::pieces_per_post() const {
  return std::min<std::size_t>({core_.caps.iov_limit, core_.caps.rma_iov_limit, 16});
}

void* RmaChannel::local_desc(const void* p, std::size_t len) {
  if (!core_.caps.mr_local) return nullptr;
  LocalSegment seg;
  if (!core_.cfg.local_segment || !core_.cfg.local_segment(reinterpret_cast<uintptr_t>(p), len, &seg))
    return nullptr;  // the caller bounces
  if (local_mrs_.size() <= seg.index) local_mrs_.resize(seg.index + 1, nullptr);
  fid_mr*& mr = local_mrs_[seg.index];
  if (!mr)  // a local-only registration of my node's segment, once per process
    mr = core_.ep.register_memory(seg.base, seg.size, FI_READ | FI_WRITE | FI_SEND | FI_RECV,
                                  kLocalKeyBase + static_cast<uint64_t>(seg.index));
  return fi_mr_desc(mr);
}

void RmaChannel::transfer(Dir dir, const Target& at, const void* local, uintptr_t remote_addr, std::size_t n,
                          Request* req) {
  const int node = at.node;
  const bool is_write = dir == Dir::Put;
  core_.order(node, is_write ? OpClass::Write : OpClass::Read);
  auto l = static_cast<char*>(const_cast<void*>(local));
  while (n > 0) {
    std::size_t chunk = std::min(n, core_.caps.max_msg);
    uint64_t raddr, key;
    core_.remote(at, remote_addr, chunk, raddr, key, is_write ? "put" : "get");
    if (chunk >= core_.rails.stripe_from) {
      striped(dir, node, l, remote_addr, raddr, chunk, req);
      l += chunk;
      remote_addr += chunk;
      n -= chunk;
      continue;
    }
    void* desc = local_desc(l, chunk);
    uint64_t flags = core_.ordering.rma_flags(is_write);
    OpCtx* c = core_.ctx(is_write ? OpKind::Write : OpKind::Read, node, req, true);
    void* at = l;
    if (is_write && chunk <= inject_limit_) {
      flags |= FI_INJECT;  // source copied at once: locally complete
      c->counts_local = false;
    } else if (core_.caps.mr_local && !desc) {
      // Through a registered bounce buffer, at most one message at a time.
      chunk = std::min(chunk, ofi::kAmMax);
      ++core_.stats.bounce_copies;
      c->buf = core_.am.take_send_buf();
      at = core_.am.send_buf(c->buf);
      desc = fi_mr_desc(core_.am.send_mr);
      if (is_write) {
        std::memcpy(at, l, chunk);
        c->counts_local = false;
      } else {
        c->copy_out = l;
        c->len = chunk;
      }
    }
    if (c->counts_local) core_.account_local(node, req);
    iovec iov{at, chunk};
    fi_rma_iov r{raddr, chunk, key};
    post({dir, node, &iov, &desc, 1, &r, 0, c, flags, chunk});
    l += chunk;
    remote_addr += chunk;
    n -= chunk;
  }
}

// One piece per NIC, in 4 KiB multiples: the same address holds on every
// NIC (the agent registers each whole segment on each), the key is that
// NIC's.  Rails exist only where no local descriptors are needed (mr_local
// off); striping only where writes complete on delivery, so each piece is
// an ordinary counted op.
void RmaChannel::striped(Dir dir, int node, char* l, uintptr_t remote_addr, uint64_t raddr, std::size_t n,
                         Request* req) {
  const ofi::RemoteSegment* seg = core_.segs.find(node, remote_addr);
  if (!seg && core_.lookup(node, remote_addr, "split transfer")) seg = core_.segs.find(node, remote_addr);
  if (!seg) fatal("ARMCI", "split transfer: address %p is in no heap segment of node %d", reinterpret_cast<void*>(remote_addr), node);
  const auto keys = seg->keys;  // a copy: posts may let the lock go, and the table may grow meanwhile
  const std::size_t k = core_.rails.count();
  const std::size_t share = (n / k + 4095) & ~std::size_t{4095};
  const bool is_write = dir == Dir::Put;
  std::size_t off = 0;
  for (std::size_t r = 0; r < k && off < n; ++r) {
    const std::size_t len = r + 1 == k ? n - off : std::min(share, n - off);
    OpCtx* c = core_.ctx(is_write ? OpKind::Write : OpKind::Read, node, req, true);
    c->rail = static_cast<int>(r);
    core_.rails.piece_posted(r);
    core_.account_local(node, req);
    iovec iov{l + off, len};
    void* desc = nullptr;
    fi_rma_iov rio{raddr + off, len, keys[r]};
    const uint64_t flags = core_.ordering.rma_flags(is_write);
    post({dir, node, &iov, &desc, 1, &rio, 0, c, flags, len, 0, static_cast<int>(r)});
    off += len;
  }
  ++core_.stats.striped;
  counts(node).striped = true;
}

void RmaChannel::iov_batch(Dir dir, const Target& at, Pieces p, std::size_t first, std::size_t count,
                           Request* req) {
  const int node = at.node;
  const bool is_write = dir == Dir::Put;
  iovec iov[16];
  void* desc[16];
  fi_rma_iov rio[16];
  std::size_t total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Piece& q = p[first + i];
    std::size_t len = q.bytes;
    uint64_t raddr, key;
    core_.remote(at, q.remote, len, raddr, key, is_write ? "put" : "get");
    desc[i] = local_desc(q.local, q.bytes);
    if (len != q.bytes || (core_.caps.mr_local && !desc[i])) {
      // Crosses a segment or needs a bounce: one piece at a time.
      for (std::size_t j = 0; j < count; ++j)
        transfer(dir, at, p[first + j].local, p[first + j].remote, p[first + j].bytes, req);
      return;
    }
    iov[i] = {const_cast<void*>(q.local), q.bytes};
    rio[i] = {raddr, q.bytes, key};
    total += q.bytes;
  }
  uint64_t flags = core_.ordering.rma_flags(is_write);
  OpCtx* c = core_.ctx(is_write ? OpKind::Write : OpKind::Read, node, req, true);
  if (is_write && total <= inject_limit_) {
    flags |= FI_INJECT;
    c->counts_local = false;
  } else {
    core_.account_local(node, req);
  }
  post({dir, node, iov, desc, count, rio, 0, c, flags, total});
}

void RmaChannel::pieces(Dir dir, const Target& at, Pieces p, Request* req) {
  const int node = at.node;
  const bool is_write = dir == Dir::Put;
  if (p.empty()) return;
  if (core_.coalesce_pieces(dir, at, p, req)) return;
  if (p.size() == 1) return transfer(dir, at, p[0].local, p[0].remote, p[0].bytes, req);
  std::size_t total = 0;
  for (const auto& q : p) total += q.bytes;
  const std::size_t avg = total / p.size();
  // Pieces that fit one RMA post go as one: a packed or staged message
  // costs the agent's wake-up on top (2 rows of 256 B across nodes on
  // tcp;ofi_rxm: 24-28 us as one write against 31-46 us packed; 4 rows of
  // 4 KiB: 30 us as one write, 45 us staged; from 32 small rows on,
  // packing is 3-4x faster, perf/peer_bench puts_256 rows).
  const std::size_t g = pieces_per_post();
  // Few-KiB pieces are staged too once the whole is big enough: an iovec
  // batch carries only a few pieces per write (perf/armci_bench --sweep
  // --sweep-bytes 1M compares the two).
  if (p.size() > g && (avg < pack_below_ || core_.stager.takes_pieces(node, total, avg))) {
    core_.order(node, is_write ? OpClass::Am : OpClass::AmGet);
    return core_.am.pieces(node, is_write ? AmOp::PutPieces : AmOp::GetPieces, 0, nullptr, p, req);
  }
  core_.order(node, is_write ? OpClass::Write : OpClass::Read);
  for (std::size_t i = 0; i < p.size();) {
    std::size_t k = 0, bytes = 0;
    while (i + k < p.size() && k < g && bytes + p[i + k].bytes <= core_.caps.max_msg) bytes += p[i + k++].bytes;
    if (k <= 1) {
      transfer(dir, at, p[i].local, p[i].remote, p[i].bytes, req);  // splits huge pieces
      k = 1;
    } else {
      iov_batch(dir, at, p, i, k, req);
    }
    i += k;
  }
}

Pieces strided_pieces(const void* local, uintptr_t remote, const StridedShape& s, bool remote_is_dst) {
  thread_local std::vector<Piece> out;
  out.clear();
  auto l = static_cast<const char*>(local);
  for_each_piece(s, [&](long so, long d, std::size_t n) {
    if (remote_is_dst) out.push_back({l + so, remote + static_cast<uintptr_t>(d), n});
    else out.push_back({l + d, remote + static_cast<uintptr_t>(so), n});
  });
  return out;
}

// ---------------------------------------------------------------- Ofi API
void Ofi::put(const Target& at, const void* src, uintptr_t dst, std::size_t n, Request* req) {
  OfiImpl::Guard g(*impl_);
  if (impl_->coalesce_put(at.node, at, src, dst, n, req)) return;
  impl_->rma.transfer(Dir::Put, at, src, dst, n, req);
}

void Ofi::get(const Target& at, uintptr_t src, void* dst, std::size_t n, Request* req) {
  OfiImpl::Guard g(*impl_);
  if (impl_->coalesce_get(at.node, at, src, dst, n, req)) return;
  impl_->rma.transfer(Dir::Get, at, dst, src, n, req);
}

void Ofi::put_pieces(const Target& at, Pieces p, Request* req) {
  OfiImpl::Guard g(*impl_);
  impl_->rma.pieces(Dir::Put, at, p, req);
}

void Ofi::get_pieces(const Target& at, Pieces p, Request* req) {
  OfiImpl::Guard g(*impl_);
  impl_->rma.pieces(Dir::Get, at, p, req);
}

void Ofi::put_strided(const Target& at, const void* src, uintptr_t dst, const StridedShape& s, Request* req) {
  OfiImpl::Guard g(*impl_);
  if (impl_->stager.put_shape(at.node, AmOp::PutStrided, 0, nullptr, src, dst, s)) return;
  impl_->rma.pieces(Dir::Put, at, strided_pieces(src, dst, s, true), req);
}

void Ofi::get_strided(const Target& at, uintptr_t src, void* dst, const StridedShape& s, Request* req) {
  OfiImpl::Guard g(*impl_);
  if (impl_->stager.get_shape(at.node, src, dst, s)) return;
  impl_->rma.pieces(Dir::Get, at, strided_pieces(dst, src, s, false), req);
}

}  // namespace armci::transport

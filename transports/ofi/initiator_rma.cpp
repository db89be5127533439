// Puts and gets as RMA on the target node's registration of the segment:
// inject for small writes, iovec batches for strided and vector shapes with
// large pieces, and packed active messages for many small pieces.
#include <rdma/fi_errno.h>

#include <cstring>

#include "common/log.hpp"
#include "transports/ofi/initiator.hpp"

namespace armci::transport {

void OfiImpl::post_rma(const RmaPost& p) {
  fi_msg_rma msg{};
  msg.data = p.cq_data;
  msg.msg_iov = p.iov;
  msg.desc = p.desc;
  msg.iov_count = p.count;
  msg.addr = static_cast<fi_addr_t>(p.node);
  msg.rma_iov = p.rma;
  msg.rma_iov_count = p.rma_count ? p.rma_count : p.count;
  msg.context = &p.c->fi;
  NodeState& s = nodes[static_cast<std::size_t>(p.node)];
  fid_ep* e = (p.nic < 0 ? own() : rails.nic(static_cast<std::size_t>(p.nic))).ep;
  if (p.dir == Dir::Put) {
    if (p.c->kind == OpKind::StageWrite) stager.write_posted(p.node);
    else ++s.writes;
    if (ordering.flush_writes && p.c->kind == OpKind::Write) ++s.unflushed;
    post([&] { return fi_writemsg(e, &msg, p.flags); }, p.node, "fi_writemsg");
  } else {
    ++s.reads;
    post([&] { return fi_readmsg(e, &msg, p.flags); }, p.node, "fi_readmsg");
  }
  stats.remote_bytes += p.bytes;
  ++stats.remote_ops;
}

void OfiImpl::rma(Dir dir, const Target& at, const void* local, uintptr_t remote_addr, std::size_t n,
                  Request* req) {
  const int node = at.node;
  const bool is_write = dir == Dir::Put;
  order(node, is_write ? OpClass::Write : OpClass::Read);
  auto l = static_cast<char*>(const_cast<void*>(local));
  while (n > 0) {
    std::size_t chunk = std::min(n, caps.max_msg);
    uint64_t raddr, key;
    remote(at, remote_addr, chunk, raddr, key, is_write ? "put" : "get");
    if (chunk >= rails.stripe_from) {
      rma_striped(dir, node, l, remote_addr, raddr, chunk, req);
      l += chunk;
      remote_addr += chunk;
      n -= chunk;
      continue;
    }
    void* desc = local_desc(l, chunk);
    uint64_t flags = ordering.rma_flags(is_write);
    OpCtx* c = ctx(is_write ? OpKind::Write : OpKind::Read, node, req, true);
    void* at = l;
    if (is_write && chunk <= inject_limit) {
      flags |= FI_INJECT;  // source copied at once: locally complete
      c->counts_local = false;
    } else if (caps.mr_local && !desc) {
      // Through a registered bounce buffer, at most one message at a time.
      chunk = std::min(chunk, ofi::kAmMax);
      ++stats.bounce_copies;
      c->buf = am.take_send_buf();
      at = am.send_buf(c->buf);
      desc = fi_mr_desc(am.send_mr);
      if (is_write) {
        std::memcpy(at, l, chunk);
        c->counts_local = false;
      } else {
        c->copy_out = l;
        c->len = chunk;
      }
    }
    if (c->counts_local) account_local(node, req);
    iovec iov{at, chunk};
    fi_rma_iov r{raddr, chunk, key};
    post_rma({dir, node, &iov, &desc, 1, &r, 0, c, flags, chunk});
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
void OfiImpl::rma_striped(Dir dir, int node, char* l, uintptr_t remote_addr, uint64_t raddr, std::size_t n,
                          Request* req) {
  const ofi::RemoteSegment* seg = segs.find(node, remote_addr);
  if (!seg && lookup(node, remote_addr, "split transfer")) seg = segs.find(node, remote_addr);
  if (!seg) fatal("ARMCI", "split transfer: address %p is in no heap segment of node %d", reinterpret_cast<void*>(remote_addr), node);
  const auto keys = seg->keys;  // a copy: posts may let the lock go, and the table may grow meanwhile
  const std::size_t k = rails.count();
  const std::size_t share = (n / k + 4095) & ~std::size_t{4095};
  const bool is_write = dir == Dir::Put;
  std::size_t off = 0;
  for (std::size_t r = 0; r < k && off < n; ++r) {
    const std::size_t len = r + 1 == k ? n - off : std::min(share, n - off);
    OpCtx* c = ctx(is_write ? OpKind::Write : OpKind::Read, node, req, true);
    c->rail = static_cast<int>(r);
    rails.piece_posted(r);
    account_local(node, req);
    iovec iov{l + off, len};
    void* desc = nullptr;
    fi_rma_iov rio{raddr + off, len, keys[r]};
    const uint64_t flags = ordering.rma_flags(is_write);
    post_rma({dir, node, &iov, &desc, 1, &rio, 0, c, flags, len, 0, static_cast<int>(r)});
    off += len;
  }
  ++stats.striped;
  nodes[static_cast<std::size_t>(node)].striped = true;
}

void OfiImpl::rma_iov(Dir dir, const Target& at, Pieces p, std::size_t first, std::size_t count, Request* req) {
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
    remote(at, q.remote, len, raddr, key, is_write ? "put" : "get");
    desc[i] = local_desc(q.local, q.bytes);
    if (len != q.bytes || (caps.mr_local && !desc[i])) {
      // Crosses a segment or needs a bounce: one piece at a time.
      for (std::size_t j = 0; j < count; ++j)
        rma(dir, at, p[first + j].local, p[first + j].remote, p[first + j].bytes, req);
      return;
    }
    iov[i] = {const_cast<void*>(q.local), q.bytes};
    rio[i] = {raddr, q.bytes, key};
    total += q.bytes;
  }
  uint64_t flags = ordering.rma_flags(is_write);
  OpCtx* c = ctx(is_write ? OpKind::Write : OpKind::Read, node, req, true);
  if (is_write && total <= inject_limit) {
    flags |= FI_INJECT;
    c->counts_local = false;
  } else {
    account_local(node, req);
  }
  post_rma({dir, node, iov, desc, count, rio, 0, c, flags, total});
}

void OfiImpl::pieces(Dir dir, const Target& at, Pieces p, Request* req) {
  const int node = at.node;
  const bool is_write = dir == Dir::Put;
  if (p.empty()) return;
  if (coalesce_pieces(dir, at, p, req)) return;
  if (p.size() == 1) return rma(dir, at, p[0].local, p[0].remote, p[0].bytes, req);
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
  if (p.size() > g && (avg < pack_below || stager.takes_pieces(node, total, avg))) {
    order(node, OpClass::Am);
    return am.pieces(node, is_write ? AmOp::PutPieces : AmOp::GetPieces, 0, nullptr, p, req);
  }
  order(node, is_write ? OpClass::Write : OpClass::Read);
  for (std::size_t i = 0; i < p.size();) {
    std::size_t k = 0, bytes = 0;
    while (i + k < p.size() && k < g && bytes + p[i + k].bytes <= caps.max_msg) bytes += p[i + k++].bytes;
    if (k <= 1) {
      rma(dir, at, p[i].local, p[i].remote, p[i].bytes, req);  // splits huge pieces
      k = 1;
    } else {
      rma_iov(dir, at, p, i, k, req);
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
  impl_->rma(Dir::Put, at, src, dst, n, req);
}

void Ofi::get(const Target& at, uintptr_t src, void* dst, std::size_t n, Request* req) {
  OfiImpl::Guard g(*impl_);
  if (impl_->coalesce_get(at.node, at, src, dst, n, req)) return;
  impl_->rma(Dir::Get, at, dst, src, n, req);
}

void Ofi::put_pieces(const Target& at, Pieces p, Request* req) {
  OfiImpl::Guard g(*impl_);
  impl_->pieces(Dir::Put, at, p, req);
}

void Ofi::get_pieces(const Target& at, Pieces p, Request* req) {
  OfiImpl::Guard g(*impl_);
  impl_->pieces(Dir::Get, at, p, req);
}

void Ofi::put_strided(const Target& at, const void* src, uintptr_t dst, const StridedShape& s, Request* req) {
  OfiImpl::Guard g(*impl_);
  if (impl_->stager.put_shape(at.node, AmOp::PutStrided, 0, nullptr, src, dst, s)) return;
  impl_->pieces(Dir::Put, at, strided_pieces(src, dst, s, true), req);
}

void Ofi::get_strided(const Target& at, uintptr_t src, void* dst, const StridedShape& s, Request* req) {
  OfiImpl::Guard g(*impl_);
  if (impl_->stager.get_shape(at.node, src, dst, s)) return;
  impl_->pieces(Dir::Get, at, strided_pieces(dst, src, s, false), req);
}

}  // namespace armci::transport

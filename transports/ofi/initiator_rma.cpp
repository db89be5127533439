// Puts and gets as RMA on the target node's registration of the segment:
// inject for small writes, iovec batches for strided and vector shapes with
// large pieces, and packed active messages for many small pieces.
#include <rdma/fi_errno.h>

#include <cstring>

#include "armci/runtime.hpp"
#include "transports/ofi/initiator.hpp"

namespace armci::transport {

namespace {
// Below this average piece size, packing pieces into active messages beats
// one RMA descriptor per piece (perf/armci_bench strided rows show the knee).
constexpr std::size_t kPackBelow = 512;
}  // namespace

void OfiImpl::write(int node, const void* src, uintptr_t dst, std::size_t n, Request* req) {
  order(node, OpClass::Write);
  auto s = static_cast<const char*>(src);
  while (n > 0) {
    std::size_t chunk = std::min(n, caps.max_msg);
    uint64_t raddr, key;
    remote(node, dst, chunk, raddr, key, "put");
    void* desc = local_desc(s, chunk);
    uint64_t flags = FI_DELIVERY_COMPLETE | FI_COMPLETION;
    OpCtx* c;
    const void* from = s;
    if (chunk <= inject_limit) {
      flags |= FI_INJECT;  // source copied at once: locally complete
      c = ctx(OpKind::Write, node, req, false);
    } else if (caps.mr_local && !desc) {
      chunk = std::min(chunk, ofi::kAmMax);  // through a registered bounce buffer
      c = ctx(OpKind::Write, node, req, false);
      c->buf = take_send_buf();
      std::memcpy(send_buf(c->buf), s, chunk);
      from = send_buf(c->buf);
      desc = fi_mr_desc(send_mr);
    } else {
      c = ctx(OpKind::Write, node, req, true);
      account_local(node, req);
    }
    iovec iov{const_cast<void*>(from), chunk};
    fi_rma_iov rma{raddr, chunk, key};
    fi_msg_rma msg{};
    msg.msg_iov = &iov;
    msg.desc = &desc;
    msg.iov_count = 1;
    msg.addr = static_cast<fi_addr_t>(node);
    msg.rma_iov = &rma;
    msg.rma_iov_count = 1;
    msg.context = &c->fi;
    ++nodes[static_cast<std::size_t>(node)].writes;
    post([&] { return fi_writemsg(ep.ep, &msg, flags); }, node, "fi_writemsg");
    rt.stats.remote_bytes += chunk;
    ++rt.stats.remote_ops;
    s += chunk;
    dst += chunk;
    n -= chunk;
  }
}

void OfiImpl::read(int node, uintptr_t src, void* dst, std::size_t n, Request* req) {
  order(node, OpClass::Read);
  auto d = static_cast<char*>(dst);
  while (n > 0) {
    std::size_t chunk = std::min(n, caps.max_msg);
    uint64_t raddr, key;
    remote(node, src, chunk, raddr, key, "get");
    void* desc = local_desc(d, chunk);
    OpCtx* c = ctx(OpKind::Read, node, req, true);
    void* into = d;
    if (caps.mr_local && !desc) {
      chunk = std::min(chunk, ofi::kAmMax);
      c->buf = take_send_buf();
      c->copy_out = d;
      c->len = chunk;
      into = send_buf(c->buf);
      desc = fi_mr_desc(send_mr);
    }
    account_local(node, req);
    iovec iov{into, chunk};
    fi_rma_iov rma{raddr, chunk, key};
    fi_msg_rma msg{};
    msg.msg_iov = &iov;
    msg.desc = &desc;
    msg.iov_count = 1;
    msg.addr = static_cast<fi_addr_t>(node);
    msg.rma_iov = &rma;
    msg.rma_iov_count = 1;
    msg.context = &c->fi;
    ++nodes[static_cast<std::size_t>(node)].reads;
    post([&] { return fi_readmsg(ep.ep, &msg, FI_COMPLETION); }, node, "fi_readmsg");
    rt.stats.remote_bytes += chunk;
    ++rt.stats.remote_ops;
    d += chunk;
    src += chunk;
    n -= chunk;
  }
}

void OfiImpl::write_iov(int node, const std::vector<Ofi::Piece>& p, std::size_t first,
                        std::size_t count, Request* req) {
  iovec iov[16];
  void* desc[16];
  fi_rma_iov rma[16];
  std::size_t total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Ofi::Piece& q = p[first + i];
    std::size_t len = q.bytes;
    uint64_t raddr, key;
    remote(node, q.remote, len, raddr, key, "put");
    desc[i] = local_desc(q.local, q.bytes);
    if (len != q.bytes || (caps.mr_local && !desc[i])) {
      // Crosses a segment or needs a bounce: one piece at a time.
      for (std::size_t j = 0; j < count; ++j) write(node, p[first + j].local, p[first + j].remote, p[first + j].bytes, req);
      return;
    }
    iov[i] = {const_cast<void*>(q.local), q.bytes};
    rma[i] = {raddr, q.bytes, key};
    total += q.bytes;
  }
  uint64_t flags = FI_DELIVERY_COMPLETE | FI_COMPLETION;
  OpCtx* c;
  if (total <= inject_limit) {
    flags |= FI_INJECT;
    c = ctx(OpKind::Write, node, req, false);
  } else {
    c = ctx(OpKind::Write, node, req, true);
    account_local(node, req);
  }
  fi_msg_rma msg{};
  msg.msg_iov = iov;
  msg.desc = desc;
  msg.iov_count = count;
  msg.addr = static_cast<fi_addr_t>(node);
  msg.rma_iov = rma;
  msg.rma_iov_count = count;
  msg.context = &c->fi;
  ++nodes[static_cast<std::size_t>(node)].writes;
  post([&] { return fi_writemsg(ep.ep, &msg, flags); }, node, "fi_writemsg");
  rt.stats.remote_bytes += total;
  ++rt.stats.remote_ops;
}

void OfiImpl::read_iov(int node, const std::vector<Ofi::Piece>& p, std::size_t first,
                       std::size_t count, Request* req) {
  iovec iov[16];
  void* desc[16];
  fi_rma_iov rma[16];
  std::size_t total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Ofi::Piece& q = p[first + i];
    std::size_t len = q.bytes;
    uint64_t raddr, key;
    remote(node, q.remote, len, raddr, key, "get");
    desc[i] = local_desc(q.local, q.bytes);
    if (len != q.bytes || (caps.mr_local && !desc[i])) {
      for (std::size_t j = 0; j < count; ++j)
        read(node, p[first + j].remote, const_cast<void*>(p[first + j].local), p[first + j].bytes, req);
      return;
    }
    iov[i] = {const_cast<void*>(q.local), q.bytes};
    rma[i] = {raddr, q.bytes, key};
    total += q.bytes;
  }
  OpCtx* c = ctx(OpKind::Read, node, req, true);
  account_local(node, req);
  fi_msg_rma msg{};
  msg.msg_iov = iov;
  msg.desc = desc;
  msg.iov_count = count;
  msg.addr = static_cast<fi_addr_t>(node);
  msg.rma_iov = rma;
  msg.rma_iov_count = count;
  msg.context = &c->fi;
  ++nodes[static_cast<std::size_t>(node)].reads;
  post([&] { return fi_readmsg(ep.ep, &msg, FI_COMPLETION); }, node, "fi_readmsg");
  rt.stats.remote_bytes += total;
  ++rt.stats.remote_ops;
}

std::vector<Ofi::Piece> strided_pieces(const void* local, uintptr_t remote, const StridedShape& s,
                                       bool remote_is_dst) {
  std::vector<Ofi::Piece> out;
  out.reserve(s.chunks());
  auto l = static_cast<const char*>(local);
  for_each_piece(s, [&](long so, long d, std::size_t n) {
    if (remote_is_dst) out.push_back({l + so, remote + static_cast<uintptr_t>(d), n});
    else out.push_back({l + d, remote + static_cast<uintptr_t>(so), n});
  });
  return out;
}

// ---------------------------------------------------------------- Ofi API
void Ofi::put(int node, const void* src, uintptr_t dst, std::size_t n, Request* req) {
  impl_->write(node, src, dst, n, req);
}

void Ofi::get(int node, uintptr_t src, void* dst, std::size_t n, Request* req) {
  impl_->read(node, src, dst, n, req);
}

void Ofi::put_pieces(int node, const std::vector<Piece>& p, Request* req) {
  if (p.empty()) return;
  if (p.size() == 1) return impl_->write(node, p[0].local, p[0].remote, p[0].bytes, req);
  std::size_t total = 0;
  for (const auto& q : p) total += q.bytes;
  if (total / p.size() < kPackBelow) {
    impl_->order(node, OpClass::Am);
    return impl_->pieces_am(node, AmOp::PutPieces, 0, nullptr, p, req);
  }
  impl_->order(node, OpClass::Write);
  const std::size_t g = std::min<std::size_t>({impl_->caps.iov_limit, impl_->caps.rma_iov_limit, 16});
  for (std::size_t i = 0; i < p.size();) {
    std::size_t k = 0, bytes = 0;
    while (i + k < p.size() && k < g && bytes + p[i + k].bytes <= impl_->caps.max_msg) bytes += p[i + k++].bytes;
    if (k == 0) k = 1;  // one huge piece: write() splits it
    if (k == 1) impl_->write(node, p[i].local, p[i].remote, p[i].bytes, req);
    else impl_->write_iov(node, p, i, k, req);
    i += k;
  }
}

void Ofi::get_pieces(int node, const std::vector<Piece>& p, Request* req) {
  if (p.empty()) return;
  if (p.size() == 1) return impl_->read(node, p[0].remote, const_cast<void*>(p[0].local), p[0].bytes, req);
  std::size_t total = 0;
  for (const auto& q : p) total += q.bytes;
  if (total / p.size() < kPackBelow) {
    impl_->order(node, OpClass::Am);
    return impl_->pieces_am(node, AmOp::GetPieces, 0, nullptr, p, req);
  }
  impl_->order(node, OpClass::Read);
  const std::size_t g = std::min<std::size_t>({impl_->caps.iov_limit, impl_->caps.rma_iov_limit, 16});
  for (std::size_t i = 0; i < p.size();) {
    std::size_t k = 0, bytes = 0;
    while (i + k < p.size() && k < g && bytes + p[i + k].bytes <= impl_->caps.max_msg) bytes += p[i + k++].bytes;
    if (k == 0) k = 1;
    if (k == 1) impl_->read(node, p[i].remote, const_cast<void*>(p[i].local), p[i].bytes, req);
    else impl_->read_iov(node, p, i, k, req);
    i += k;
  }
}

void Ofi::put_strided(int node, const void* src, uintptr_t dst, const StridedShape& s, Request* req) {
  put_pieces(node, strided_pieces(src, dst, s, true), req);
}

void Ofi::get_strided(int node, uintptr_t src, void* dst, const StridedShape& s, Request* req) {
  get_pieces(node, strided_pieces(dst, src, s, false), req);
}

}  // namespace armci::transport

// Messages from one process's endpoint straight to another's (tagged, so
// they never meet the agents' replies): what collectives among node leaders
// send.  The receiver waits in the collective anyway and takes the message
// off its own endpoint, instead of an agent taking it, storing it in the
// mailbox and waking the receiver (two sleeping threads on the way).
// A send is a copy, so it returns at once whatever the provider's protocol
// (a rendezvous waits for the receiver), or for large bodies borrows the
// caller's buffer until msg_drain; a receive waits for its message.
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <poll.h>

#include <chrono>
#include <cstring>

#include "common/log.hpp"
#include "transports/ofi/initiator.hpp"

namespace armci::transport {

fi_addr_t OfiImpl::peer(int rank) {
  fi_addr_t& a = peers.addr[static_cast<std::size_t>(rank)];
  if (a == FI_ADDR_UNSPEC) a = peers.ep->insert_one(cfg.peer_address(rank), "a process endpoint");
  return a;
}

void OfiImpl::msg_send(int to, uint64_t tag, const void* head, std::size_t head_len, const void* body,
                       std::size_t len, bool borrow) {
  if (borrow && peers.ep->caps.iov_limit < 2) borrow = false;
  const std::size_t total = head_len + len;
  const std::size_t copied = borrow ? head_len : total;
  const fi_addr_t dst = peer(to);
  ++stats.peer_messages;
  stats.remote_bytes += len;
  int b;
  if (peers.free_bufs.empty()) {
    b = static_cast<int>(peers.bufs.size());
    peers.bufs.emplace_back();
  } else {
    b = peers.free_bufs.back();
    peers.free_bufs.pop_back();
  }
  std::vector<char>& m = peers.bufs[static_cast<std::size_t>(b)];
  if (m.size() < copied) m.resize(copied);
  std::memcpy(m.data(), head, head_len);
  if (len && !borrow) std::memcpy(m.data() + head_len, body, len);
  if (!borrow && total <= peers.ep->caps.inject) {
    post([&] { return fi_tinject(peers.ep->ep, m.data(), total, dst, tag); }, -1, "fi_tinject");
    peers.free_bufs.push_back(b);
    return;
  }
  OpCtx* c = ctx(OpKind::MsgSend, -1, nullptr, false);
  c->msg = b;
  ++peers.sends;
  if (!borrow) {
    post([&] { return fi_tsend(peers.ep->ep, m.data(), total, nullptr, dst, tag, &c->fi); }, -1, "fi_tsend");
    return;
  }
  iovec iov[2] = {{m.data(), head_len}, {const_cast<void*>(body), len}};
  post([&] { return fi_tsendv(peers.ep->ep, iov, nullptr, 2, dst, tag, &c->fi); }, -1, "fi_tsendv");
}

MsgWait OfiImpl::msg_recv(int from, uint64_t tag, void* head, std::size_t head_len, void* body, std::size_t cap,
                          const char* what) {
  (void)from;  // its rank is in the tag: no directed receive needed
  MsgWait w;
  OpCtx* c = ctx(OpKind::MsgRecv, -1, nullptr, false);
  c->copy_out = &w;
  iovec iov[2] = {{head, head_len}, {body, cap}};
  const std::size_t n = cap ? 2 : 1;
  post([&] { return fi_trecvv(peers.ep->ep, iov, nullptr, n, FI_ADDR_UNSPEC, tag, 0, &c->fi); }, -1, "fi_trecvv");
  ++peers.recvs;
  wait_message(w, what);
  return w;
}

// Polls like any wait at first (a collective's partner is usually close
// behind); a wait past a millisecond with nothing else of ours in flight
// sleeps on the message endpoint's file descriptor instead, so processes
// parked in a collective leave the cores to those still working (polling
// them cost a 1 MiB put + fence between two others 290 against 200 us on
// 2 cores, perf/armci_bench).
void OfiImpl::wait_message(const MsgWait& w, const char* what) {
  progress();
  if (w.done) return;
  Backoff b("ARMCI", what);
  WaitWatch watch("ARMCI", what);  // the health check and ARMCI_TIMEOUT while asleep
  const auto start = std::chrono::steady_clock::now();
  const int fd = peers.ep->wait_fd();
  for (;;) {
    const bool any = progress();
    if (w.done) return;
    if (any) {
      b.reset();
      continue;
    }
    if (fd >= 0 && std::chrono::steady_clock::now() - start > std::chrono::milliseconds(1) && !rma_in_flight() &&
        peers.ep->trywait()) {
      unlocked([&] {
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, 10);
      });
      watch.check();
      continue;
    }
    unlocked([&] { b.pause(); });
  }
}


// A send's copy is free again; a receive tells its waiter (which holds the
// MsgWait on its stack until done is set).
void OfiImpl::msg_done(OpCtx* c, std::size_t len, bool truncated) {
  if (c->kind == OpKind::MsgSend) {
    peers.free_bufs.push_back(c->msg);
    --peers.sends;
  } else {
    --peers.recvs;
    auto* w = static_cast<MsgWait*>(c->copy_out);
    w->len = len;
    w->truncated = truncated;
    w->done = true;
  }
  release(c);
}

// ---------------------------------------------------------------- Ofi API
void Ofi::msg_drain() {
  OfiImpl::Guard g(*impl_);
  if (impl_->peers.sends) impl_->wait_until([&] { return impl_->peers.sends == 0; }, "messages to other processes to leave");
}

bool Ofi::direct_messages() const { return impl_->peers.on; }

void Ofi::msg_send(int to, uint64_t tag, const void* head, std::size_t head_len, const void* body,
                   std::size_t len, bool borrow) {
  OfiImpl::Guard g(*impl_);
  impl_->msg_send(to, tag, head, head_len, body, len, borrow);
}

std::size_t Ofi::msg_recv(int from, uint64_t tag, void* head, std::size_t head_len, void* body, std::size_t cap,
                          const char* what, bool* longer) {
  OfiImpl::Guard g(*impl_);
  const MsgWait w = impl_->msg_recv(from, tag, head, head_len, body, cap, what);
  *longer = w.truncated;
  return w.len;
}

}  // namespace armci::transport

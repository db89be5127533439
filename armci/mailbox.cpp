#include "armci/mailbox.hpp"

#include <algorithm>
#include <cstring>

#include "armci/route.hpp"
#include "armci/runtime.hpp"
#include "transports/ofi/am_protocol.hpp"
#include "common/log.hpp"

namespace armci {

namespace {
constexpr std::size_t kLine = 64;
constexpr uint32_t kRing = 2;  // slots per sender: pieces in flight before a credit is needed
constexpr std::size_t kPieceHdr = 32;  // at slot + 32; data at slot + 64
constexpr std::size_t kRemotePieceMax = transport::ofi::kSignalPayloadMax - kPieceHdr;
std::size_t up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

struct PieceHeader {
  uint32_t ctx;
  int32_t tag;
  uint32_t len;
  uint32_t credit;  // pieces of the receiver's own stream to me that the sender consumed
  uint64_t total;
  uint64_t offset;
};
static_assert(sizeof(PieceHeader) == kPieceHdr);

struct Layout {
  std::size_t pending, ack, notice, slots, stride, bytes;
};
Layout layout(int nprocs, std::size_t slot_bytes) {
  Layout l;
  std::size_t p = static_cast<std::size_t>(nprocs);
  l.pending = kLine;
  l.ack = up(l.pending + 8 * ((p + 63) / 64), kLine);
  l.notice = up(l.ack + 4 * p, kLine);
  l.slots = up(l.notice + 4 * p, kLine);
  l.stride = up(64 + slot_bytes / kRing, kLine);
  l.bytes = up(l.slots + p * kRing * l.stride, 4096);
  return l;
}
}  // namespace

std::size_t Mailbox::area_bytes(int nprocs, std::size_t slot_bytes) {
  return layout(nprocs, slot_bytes).bytes;
}

void Mailbox::init(Runtime& rt, std::size_t slot_bytes) {
  rt_ = &rt;
  nprocs_ = rt.nprocs();
  me_ = rt.me();
  slot_bytes_ = slot_bytes / kRing;
  Layout l = layout(nprocs_, slot_bytes);
  area_bytes_ = l.bytes;
  off_pending_ = l.pending;
  off_ack_ = l.ack;
  off_notice_ = l.notice;
  off_slots_ = l.slots;
  slot_stride_ = l.stride;
  my_area_ = area_of(me_);
  sent_seq_.assign(static_cast<std::size_t>(nprocs_), 0);
  recv_seq_.assign(static_cast<std::size_t>(nprocs_), 0);
  owed_.assign(static_cast<std::size_t>(nprocs_), 0);
  assembling_.assign(static_cast<std::size_t>(nprocs_), Assembly{});
  staging_.resize(kPieceHdr + slot_bytes_);
  notify_sent_.assign(static_cast<std::size_t>(nprocs_), 0);
  notify_waited_.assign(static_cast<std::size_t>(nprocs_), 0);
}

uintptr_t Mailbox::area_of(int proc) const {
  const auto& t = rt_->topo;
  return rt_->node_heap_base[static_cast<std::size_t>(t.node_of[static_cast<std::size_t>(proc)])] +
         static_cast<std::size_t>(t.local_index[static_cast<std::size_t>(proc)]) * area_bytes_;
}

uintptr_t Mailbox::slot_of(uintptr_t area, int sender, uint32_t seq) const {
  return area + off_slots_ + (static_cast<std::size_t>(sender) * kRing + seq % kRing) * slot_stride_;
}

Doorbell& Mailbox::my_bell() { return *reinterpret_cast<Doorbell*>(my_area_); }

std::atomic<uint32_t>& Mailbox::notices_from(int from) {
  return *reinterpret_cast<std::atomic<uint32_t>*>(my_area_ + off_notice_ + 4 * static_cast<std::size_t>(from));
}

uintptr_t Mailbox::notices_addr(int target, int from) const {
  return area_of(target) + off_notice_ + 4 * static_cast<std::size_t>(from);
}

namespace {
// Bytes [off, off+n) of the message `pre` then `buf`, into dst.
void copy_out(char* dst, const void* pre, std::size_t pre_len, const void* buf, std::size_t off, std::size_t n) {
  if (off < pre_len) {
    const std::size_t k = std::min(n, pre_len - off);
    std::memcpy(dst, static_cast<const char*>(pre) + off, k);
    dst += k;
    off += k;
    n -= k;
  }
  if (n) std::memcpy(dst, static_cast<const char*>(buf) + (off - pre_len), n);
}
}  // namespace

void Mailbox::send(uint32_t ctx, int tag, int to, const void* buf, std::size_t len) {
  send(ctx, tag, to, nullptr, 0, buf, len);
}

void Mailbox::send(uint32_t ctx, int tag, int to, const void* pre, std::size_t pre_len, const void* buf,
                   std::size_t body_len) {
  const std::size_t len = pre_len + body_len;
  if (to == me_) {
    Message m{me_, ctx, tag, std::vector<char>(len)};
    if (len) copy_out(m.data.data(), pre, pre_len, buf, 0, len);
    arrived_.push_back(std::move(m));
    return;
  }
  const uintptr_t area = area_of(to);
  auto* credits = reinterpret_cast<std::atomic<uint32_t>*>(my_area_ + off_ack_ + 4 * static_cast<std::size_t>(to));
  // Pieces to another node ride in one active message each.
  const std::size_t piece =
      rt_->topo.same_node(to) ? slot_bytes_ : std::min(slot_bytes_, kRemotePieceMax);
  std::size_t off = 0;
  do {
    const std::size_t n = std::min(piece, len - off);
    uint32_t& seq = sent_seq_[static_cast<std::size_t>(to)];
    // A slot is free once the receiver credited the piece before it in the
    // ring; meanwhile keep draining my own inbox (credits arrive there too,
    // and two senders cannot deadlock).
    my_bell().wait(
        [&] {
          drain();
          return seq - credits->load(std::memory_order_acquire) < kRing;
        },
        "armci_msg_snd", "a receiver to take the previous message pieces");
    const uintptr_t slot = slot_of(area, me_, seq);
    uint32_t& owed = owed_[static_cast<std::size_t>(to)];
    PieceHeader h{ctx, tag, static_cast<uint32_t>(n), owed, len, off};
    owed = 0;
    // Header and data are staged as one payload and the router delivers it:
    // stores on this node, one active message to another.
    std::memcpy(staging_.data(), &h, sizeof h);
    if (n) copy_out(staging_.data() + kPieceHdr, pre, pre_len, buf, off, n);
    transport::Signal s;
    s.data_dst = slot + kPieceHdr;
    s.data = staging_.data();
    s.len = static_cast<uint32_t>(kPieceHdr + n);
    s.flag_op = transport::FlagOp::Store;
    s.flag = slot;
    s.flag_val = seq + 1;
    s.bits = area + off_pending_ + 8 * static_cast<std::size_t>(me_ / 64);
    s.bit_mask = uint64_t{1} << (me_ % 64);
    s.bell = area;
    route::signal(*rt_, to, s);
    ++seq;
    off += n;
  } while (off < len);
}

void Mailbox::consume(int sender) {
  const auto si = static_cast<std::size_t>(sender);
  uint32_t& seen = recv_seq_[si];
  for (;;) {
    const uintptr_t slot = slot_of(my_area_, sender, seen);
    auto* seqw = reinterpret_cast<std::atomic<uint32_t>*>(slot);
    if (seqw->load(std::memory_order_acquire) != seen + 1) return;
    PieceHeader h;
    std::memcpy(&h, reinterpret_cast<const void*>(slot + kPieceHdr), sizeof h);
    if (h.credit)
      reinterpret_cast<std::atomic<uint32_t>*>(my_area_ + off_ack_ + 4 * si)
          ->fetch_add(h.credit, std::memory_order_acq_rel);
    Assembly& a = assembling_[si];
    if (h.offset == 0) {
      a.active = true;
      a.ctx = h.ctx;
      a.tag = h.tag;
      a.got = 0;
      a.data.resize(h.total);
    }
    if (h.len) std::memcpy(a.data.data() + h.offset, reinterpret_cast<const void*>(slot + 64), h.len);
    a.got += h.len;
    ++seen;
    // A full ring consumed and no message of mine back to the sender carried
    // the credit yet: send it on its own, or the sender could wait forever.
    if (++owed_[si] == kRing) {
      transport::Signal ack;
      ack.flag_op = transport::FlagOp::Add;
      ack.flag = area_of(sender) + off_ack_ + 4 * static_cast<std::size_t>(me_);
      ack.flag_val = owed_[si];
      ack.bell = area_of(sender);
      owed_[si] = 0;
      route::signal(*rt_, sender, ack);
    }
    if (a.got == a.data.size()) {
      arrived_.push_back(Message{sender, a.ctx, a.tag, std::move(a.data)});
      a = Assembly{};
    }
  }
}

void Mailbox::drain() {
  const std::size_t words = (static_cast<std::size_t>(nprocs_) + 63) / 64;
  for (std::size_t w = 0; w < words; ++w) {
    auto* pw = reinterpret_cast<std::atomic<uint64_t>*>(my_area_ + off_pending_ + 8 * w);
    if (pw->load(std::memory_order_relaxed) == 0) continue;
    uint64_t bits = pw->exchange(0, std::memory_order_acq_rel);
    while (bits) {
      int b = __builtin_ctzll(bits);
      bits &= bits - 1;
      consume(static_cast<int>(w * 64) + b);
    }
  }
}

std::deque<Mailbox::Message>::iterator Mailbox::find(uint32_t ctx, int tag, int from) {
  for (auto it = arrived_.begin(); it != arrived_.end(); ++it)
    if (it->ctx == ctx && it->tag == tag && (from == kAnySource || it->src == from)) return it;
  return arrived_.end();
}

bool Mailbox::take(uint32_t ctx, int tag, int from, void* buf, std::size_t cap, std::size_t* len,
                   int* src, const char* call) {
  auto it = find(ctx, tag, from);
  if (it == arrived_.end()) return false;
  if (it->data.size() > cap)
    fatal(call, "message of %zu bytes from process %d (tag %d) does not fit the %zu-byte buffer",
          it->data.size(), it->src, tag, cap);
  if (!it->data.empty()) std::memcpy(buf, it->data.data(), it->data.size());
  *len = it->data.size();
  if (src) *src = it->src;
  arrived_.erase(it);
  return true;
}

std::vector<char> Mailbox::recv_whole(uint32_t ctx, int tag, int from, const char* call, const char* what,
                                      const Peek& others) {
  std::vector<char> out;
  my_bell().wait(
      [&] {
        if (try_recv_whole(ctx, tag, from, out)) return true;
        for (const Message& m : arrived_)
          if (m.ctx == ctx && m.tag == tag) others(m.src, m.data);
        return false;
      },
      call, what);
  return out;
}

bool Mailbox::try_recv_whole(uint32_t ctx, int tag, int from, std::vector<char>& out) {
  drain();
  auto it = find(ctx, tag, from);
  if (it == arrived_.end()) return false;
  out = std::move(it->data);
  arrived_.erase(it);
  return true;
}

uint32_t Mailbox::next_collective(uint32_t ctx) {
  // The world's collectives (most of them) without the lock and the map.
  if (ctx == kCtxWorld) return world_seq_.fetch_add(1, std::memory_order_relaxed) + 1;
  std::lock_guard<std::mutex> g(coll_mu_);
  return ++coll_seq_[ctx];
}

std::size_t Mailbox::recv(uint32_t ctx, int tag, int from, void* buf, std::size_t cap, int* src,
                          const char* call) {
  std::size_t len = 0;
  if (take(ctx, tag, from, buf, cap, &len, src, call)) return len;
  my_bell().wait(
      [&] {
        drain();
        return take(ctx, tag, from, buf, cap, &len, src, call);
      },
      call, from == kAnySource ? "a message from any process" : "a message from a peer");
  return len;
}

}  // namespace armci

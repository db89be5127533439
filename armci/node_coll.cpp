#include "armci/node_coll.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "armci/runtime.hpp"

namespace armci {

namespace {
constexpr std::size_t kCallWords = 6;  // a call's name, up to 47 characters

void put_name(std::atomic<uint64_t>* w, const char* name) {
  char b[kCallWords * 8] = {};
  for (std::size_t i = 0; i + 1 < sizeof b && name[i]; ++i) b[i] = name[i];
  for (std::size_t i = 0; i < kCallWords; ++i) {
    uint64_t v;
    std::memcpy(&v, b + 8 * i, 8);
    w[i].store(v, std::memory_order_relaxed);
  }
}
}  // namespace

// The header of a buffer is rewritten under a sequence lock (version odd
// meanwhile), so a consumer scanning for the next chunk never takes a half
// written one; its data only changes once every consumer of the previous
// content counted itself in `acks`.
struct NodeColl::Slot {
  alignas(64) std::atomic<uint32_t> version{0};
  std::atomic<uint32_t> acks{0};
  uint32_t need = 0;  // consumers of the current content (the producer's own field)
  std::atomic<uint32_t> ctx{0}, seq{0}, phase{0}, chunk{0};
  std::atomic<uint64_t> len{0};
  std::atomic<uint64_t> call[kCallWords];
};

// Two rings per process: two 64 KiB buffers for chunks of large payloads,
// and kSmall small ones, so a root of many small broadcasts can run that far
// ahead of its slowest consumer.
struct NodeColl::Area {
  alignas(64) Doorbell published;  // a chunk is ready in one of the buffers
  alignas(64) Doorbell freed;      // a consumer finished with one
  Slot big[kBig];
  Slot small[kSmall];
  alignas(64) char big_data[kBig][kChunk];
  alignas(64) char small_data[kSmall][kSmallBytes];
};

NodeColl::Ring NodeColl::ring(Area& a, std::size_t len) {
  if (len <= kSmallBytes) return {a.small, &a.small_data[0][0], kSmallBytes, kSmall};
  return {a.big, &a.big_data[0][0], kChunk, kBig};
}

// Where a chunk goes is a function of its key, so a consumer reads one slot
// instead of scanning the ring: consecutive chunks, phases and collectives
// of a team take consecutive slots (3 is prime to both ring sizes).  Teams
// that interleave may meet in a slot; the producer then waits for it.
std::size_t NodeColl::slot_of(const Key& k, uint32_t chunk, std::size_t count) {
  return (static_cast<std::size_t>(k.seq) * 3 + k.phase + chunk) % count;
}

std::size_t NodeColl::area_bytes() { return (sizeof(Area) + 4095) / 4096 * 4096; }

void NodeColl::init(Runtime& rt, uintptr_t areas) {
  rt_ = &rt;
  areas_ = areas;
}

NodeColl::Area& NodeColl::area_of(int world_rank) const {
  const auto local = static_cast<std::size_t>(rt_->topo.local_index[static_cast<std::size_t>(world_rank)]);
  return *reinterpret_cast<Area*>(areas_ + local * area_bytes());
}

void NodeColl::publish(const Key& k, uint32_t chunk, const void* data, std::size_t len, uint32_t consumers) {
  Area& a = area_of(rt_->me());
  const Ring r = ring(a, len);
  const std::size_t i = slot_of(k, chunk, r.count);
  Slot& b = r.slots[i];
  a.freed.wait([&] { return b.acks.load(std::memory_order_acquire) >= b.need; }, k.call,
               "the other processes of this node to take an earlier chunk of a collective");
  b.acks.store(0, std::memory_order_relaxed);
  b.need = consumers;
  b.version.fetch_add(1, std::memory_order_acq_rel);
  b.ctx.store(k.ctx, std::memory_order_relaxed);
  b.seq.store(k.seq, std::memory_order_relaxed);
  b.phase.store(k.phase, std::memory_order_relaxed);
  b.chunk.store(chunk, std::memory_order_relaxed);
  b.len.store(len, std::memory_order_relaxed);
  put_name(b.call, k.call);
  if (len) std::memcpy(r.data + i * r.stride, data, len);
  b.version.fetch_add(1, std::memory_order_release);
  a.published.ring();
}

template <typename Use>
void NodeColl::consume(int producer, const Key& k, uint32_t chunk, std::size_t len, Use&& use) {
  Area& a = area_of(producer);
  const Ring r = ring(a, len);
  Slot& b = r.slots[slot_of(k, chunk, r.count)];
  auto ready = [&] {
    {
      const uint32_t v = b.version.load(std::memory_order_acquire);
      if (v & 1) return false;
      const uint32_t ctx = b.ctx.load(std::memory_order_relaxed), seq = b.seq.load(std::memory_order_relaxed);
      const uint32_t phase = b.phase.load(std::memory_order_relaxed), c = b.chunk.load(std::memory_order_relaxed);
      const uint64_t n = b.len.load(std::memory_order_relaxed);
      char theirs[kCallWords * 8];
      for (std::size_t i = 0; i < kCallWords; ++i) {
        const uint64_t w = b.call[i].load(std::memory_order_relaxed);
        std::memcpy(theirs + 8 * i, &w, 8);
      }
      std::atomic_thread_fence(std::memory_order_acquire);
      if (b.version.load(std::memory_order_relaxed) != v || ctx != k.ctx || seq != k.seq) return false;
      theirs[sizeof theirs - 1] = '\0';
      if (std::strncmp(theirs, k.call, sizeof theirs - 1) != 0)
        fatal(k.call,
              "collectives do not match: this process (%d) is in %s, its collective #%u on this group, "
              "but process %d sent its part of %s, its collective #%u (every member must make the same "
              "collective calls in the same order)",
              rt_->me(), k.call, k.seq, producer, theirs, seq);
      if (phase != k.phase || c != chunk) return false;
      if (n != len)
        fatal(k.call, "collective #%u (%s): %llu bytes from process %d where %zu were expected "
              "(members passed different sizes?)", k.seq, k.step, static_cast<unsigned long long>(n), producer, len);
      return true;
    }
  };
  // A few polls first: the report a long wait needs costs more to write
  // than most waits last.
  const unsigned every = yield_every_now(wait_policy());
  bool here = ready();
  for (unsigned i = 1; !here && i <= 256; ++i) {
    if (i % every == 0) sched_yield_hint();
    here = ready();
  }
  if (!here) {
    char what[160];
    std::snprintf(what, sizeof what, "process %d's part of collective #%u (%s, %s)", producer, k.seq, k.call, k.step);
    a.published.wait(ready, k.call, what);
  }
  use(r.data + static_cast<std::size_t>(&b - r.slots) * r.stride, len);
  b.acks.fetch_add(1, std::memory_order_release);
  a.freed.ring();
}

namespace {
uint32_t chunks_of(std::size_t bytes) {
  return bytes == 0 ? 1 : static_cast<uint32_t>((bytes + NodeColl::kChunk - 1) / NodeColl::kChunk);
}
std::size_t chunk_len(std::size_t bytes, uint32_t c) {
  return std::min(NodeColl::kChunk, bytes - c * NodeColl::kChunk);
}
}  // namespace

void NodeColl::bcast(const Team& t, int root, void* buf, std::size_t len, const Key& k) {
  if (t.size() == 1) return;
  auto* p = static_cast<char*>(buf);
  const uint32_t n = chunks_of(len);
  for (uint32_t c = 0; c < n; ++c) {
    const std::size_t at = c * kChunk, cl = chunk_len(len, c);
    if (t.me == root) publish(k, c, p + at, cl, static_cast<uint32_t>(t.size() - 1));
    else consume(t.world(root), k, c, cl, [&](const char* d, std::size_t m) { if (m) std::memcpy(p + at, d, m); });
  }
}

// The root combines the members' chunks into its buffer in team order.
void NodeColl::reduce(const Team& t, int root, void* buf, std::size_t n, int type, ReduceOp op, const Key& k) {
  if (t.size() == 1) return;
  const std::size_t es = msg_type_size(type);
  const std::size_t bytes = n * es;
  auto* p = static_cast<char*>(buf);
  const uint32_t chunks = chunks_of(bytes);
  for (uint32_t c = 0; c < chunks; ++c) {
    const std::size_t at = c * kChunk, cl = chunk_len(bytes, c);
    if (t.me != root) {
      publish(k, c, p + at, cl, 1);
      continue;
    }
    for (int q = 0; q < t.size(); ++q) {
      if (q == root) continue;
      consume(t.world(q), k, c, cl, [&](const char* d, std::size_t m) {
        if (m) reduce_combine(type, op, p + at, d, m / es);
      });
    }
  }
}

void NodeColl::gather(const Team& t, int root, const void* mine, std::size_t len, void* all, const Key& k) {
  const auto* src = static_cast<const char*>(mine);
  auto* out = static_cast<char*>(all);
  const uint32_t chunks = chunks_of(len);
  if (t.me != root) {
    for (uint32_t c = 0; c < chunks; ++c) publish(k, c, src + c * kChunk, chunk_len(len, c), 1);
    return;
  }
  for (int q = 0; q < t.size(); ++q) {
    char* dst = out + static_cast<std::size_t>(q) * len;
    if (q == root) {
      if (len) std::memcpy(dst, src, len);
      continue;
    }
    for (uint32_t c = 0; c < chunks; ++c)
      consume(t.world(q), k, c, chunk_len(len, c),
              [&](const char* d, std::size_t m) { if (m) std::memcpy(dst + c * kChunk, d, m); });
  }
}

// Small payloads: every member publishes once and combines everyone's, in
// team order (so all end with the same bits), with no root in between.
void NodeColl::allreduce(const Team& t, void* buf, std::size_t n, int type, ReduceOp op, const Key& k) {
  if (t.size() == 1) return;
  const std::size_t es = msg_type_size(type), bytes = n * es;
  if (bytes > kSmallBytes) {
    Key second = k;
    ++second.phase;  // the caller left room for two phases
    reduce(t, 0, buf, n, type, op, k);
    return bcast(t, 0, buf, bytes, second);
  }
  publish(k, 0, buf, bytes, static_cast<uint32_t>(t.size() - 1));
  char sum[kSmallBytes];
  for (int q = 0; q < t.size(); ++q) {
    auto add = [&](const char* d, std::size_t) {
      if (!bytes) return;
      if (q == 0) std::memcpy(sum, d, bytes);
      else reduce_combine(type, op, sum, d, n);
    };
    if (q == t.me) add(static_cast<const char*>(buf), bytes);
    else consume(t.world(q), k, 0, bytes, add);
  }
  if (bytes) std::memcpy(buf, sum, bytes);
}

}  // namespace armci

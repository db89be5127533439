#include "armci/node_coll.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "armci/runtime.hpp"

namespace armci {

namespace {
constexpr std::size_t kMetaBytes = 32;
}  // namespace

// What a consumer polls: the identity of a buffer's content, rewritten
// under a sequence lock by its one writer (version odd meanwhile, plain
// stores: no locked instruction), so a consumer scanning for its chunk
// never takes a half-written header.  A small buffer's payload follows in
// the same line.  The content only changes once every consumer of the
// previous one counted itself in the buffer's ack word.
struct NodeColl::Head {
  std::atomic<uint32_t> version{0};
  std::atomic<uint32_t> ctx{0}, seq{0}, phase{0}, chunk{0}, len{0}, call_id{0}, pad{0};
};
static_assert(sizeof(NodeColl::Head) == kMetaBytes);

namespace {
struct alignas(64) SmallSlot {
  NodeColl::Head head;
  char data[NodeColl::kSmallBytes];  // the first 32 bytes share the header's line
};
struct alignas(64) BigSlot {
  NodeColl::Head head;
};
// Consumers' counts only grow: the producer keeps, in its own memory, the
// count that frees each buffer, so it never writes these lines itself.
struct alignas(64) Ack {
  std::atomic<uint32_t> n{0};
};
// The call's name, written only when a buffer's call changes and read only
// to report a mismatch.
struct Name {
  char s[NodeColl::kNameBytes];
};

}  // namespace

// A hash of the call's name, which the header carries instead of the name:
// whole words folded, then the tail bytes, one multiplication at the end
// (it runs once per collective).  Never 0, the value of no call.
uint32_t NodeColl::call_id(const char* s) {
  const std::size_t n = std::min(std::strlen(s), kNameBytes - 1);
  uint64_t h = n;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, s + i, 8);
    h = ((h << 5) | (h >> 59)) ^ w;
  }
  for (; i < n; ++i) h = ((h << 5) | (h >> 59)) ^ static_cast<unsigned char>(s[i]);
  h *= 0xff51afd7ed558ccdull;
  return static_cast<uint32_t>(h ^ (h >> 32)) | 1u;
}

// Per process: a deep ring of small buffers, so a root of many small
// broadcasts can run that far ahead of its slowest consumer, and kBig 64 KiB
// buffers for chunks of large payloads.
struct NodeColl::Area {
  alignas(64) Doorbell published;  // a chunk is ready in one of the buffers
  alignas(64) Doorbell freed;      // a consumer finished with one
  SmallSlot small[kSmall];
  Ack small_acks[kSmall];
  BigSlot big[kBig];
  Ack big_acks[kBig];
  Name small_names[kSmall];
  Name big_names[kBig];
  alignas(64) char big_data[kBig][kChunk];
};

NodeColl::Ring NodeColl::ring(Area& a, std::size_t len) {
  if (len <= kSmallBytes)
    return {reinterpret_cast<char*>(&a.small[0].head), sizeof(SmallSlot), reinterpret_cast<char*>(&a.small_acks[0]),
            sizeof(Ack), a.small[0].data, sizeof(SmallSlot), a.small_names[0].s, kSmall, small_target_, small_name_};
  return {reinterpret_cast<char*>(&a.big[0].head), sizeof(BigSlot), reinterpret_cast<char*>(&a.big_acks[0]),
          sizeof(Ack), &a.big_data[0][0], kChunk, a.big_names[0].s, kBig, big_target_, big_name_};
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
  std::atomic<uint32_t>& acks = r.ack(i);
  std::unique_lock<std::mutex> lock(produce_mu_, std::defer_lock);
  if (threaded_) lock.lock();
  // Free once every consumer of its content counted itself (counts wrap).
  // The wait reads a copy of the target: another thread may raise it.
  auto freed_for = [&](uint32_t target) {
    return static_cast<int32_t>(acks.load(std::memory_order_acquire) - target) >= 0;
  };
  while (!freed_for(r.target[i])) {
    const uint32_t target = r.target[i];
    if (lock.owns_lock()) lock.unlock();
    a.freed.wait([&] { return freed_for(target); }, k.call,
                 "the other processes of this node to take an earlier chunk of a collective");
    if (threaded_) lock.lock();
  }
  r.target[i] += consumers;
  Head& h = r.head(i);
  const uint32_t v = h.version.load(std::memory_order_relaxed);
  h.version.store(v + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  h.ctx.store(k.ctx, std::memory_order_relaxed);
  h.seq.store(k.seq, std::memory_order_relaxed);
  h.phase.store(k.phase, std::memory_order_relaxed);
  h.chunk.store(chunk, std::memory_order_relaxed);
  h.len.store(static_cast<uint32_t>(len), std::memory_order_relaxed);
  h.call_id.store(k.call_id, std::memory_order_relaxed);
  if (r.name_id[i] != k.call_id) {
    char* name = r.name(i);
    std::memset(name, 0, kNameBytes);
    std::strncpy(name, k.call, kNameBytes - 1);
    r.name_id[i] = k.call_id;
  }
  if (len) std::memcpy(r.data(i), data, len);
  h.version.store(v + 2, std::memory_order_release);
  if (lock.owns_lock()) lock.unlock();
  a.published.ring();
}

void NodeColl::mismatch(int producer, const Key& k, const char* theirs, uint32_t seq) const {
  fatal(k.call,
        "collectives do not match: this process (%d) is in %s, its collective #%u on this group, "
        "but process %d sent its part of %s, its collective #%u (every member must make the same "
        "collective calls in the same order)",
        rt_->me(), k.call, k.seq, producer, theirs, seq);
}

template <typename Use>
void NodeColl::consume(int producer, const Key& k, uint32_t chunk, std::size_t len, Use&& use) {
  Area& a = area_of(producer);
  const Ring r = ring(a, len);
  const std::size_t i = slot_of(k, chunk, r.count);
  Head& h = r.head(i);
  auto ready = [&] {
    const uint32_t v = h.version.load(std::memory_order_acquire);
    if (v & 1) return false;
    const uint32_t ctx = h.ctx.load(std::memory_order_relaxed), seq = h.seq.load(std::memory_order_relaxed);
    const uint32_t phase = h.phase.load(std::memory_order_relaxed), c = h.chunk.load(std::memory_order_relaxed);
    const uint32_t n = h.len.load(std::memory_order_relaxed), id = h.call_id.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (h.version.load(std::memory_order_relaxed) != v || ctx != k.ctx || seq != k.seq) return false;
    // Same collective number on the same team: it must be the same call.
    // The name is stable here: the buffer waits for this process's count.
    if (id != k.call_id) {
      char theirs[kNameBytes];
      std::memcpy(theirs, r.name(i), kNameBytes);
      theirs[kNameBytes - 1] = '\0';
      mismatch(producer, k, theirs, seq);
    }
    if (phase != k.phase || c != chunk) return false;
    if (n != len)
      fatal(k.call, "collective #%u (%s): %u bytes from process %d where %zu were expected "
            "(members passed different sizes?)", k.seq, k.step, n, producer, len);
    return true;
  };
  // A few polls first: the report a long wait needs costs more to write
  // than most waits last.
  if (!ready()) {
    const unsigned every = yield_every_now(wait_policy());
    bool here = false;
    for (unsigned n = 1; !here && n <= 256; ++n) {
      if (n % every == 0) sched_yield_hint();
      here = ready();
    }
    if (!here) {
      char what[160];
      std::snprintf(what, sizeof what, "process %d's part of collective #%u (%s, %s)", producer, k.seq, k.call,
                    k.step);
      a.published.wait(ready, k.call, what);
    }
  }
  use(r.data(i), len);
  r.ack(i).fetch_add(1, std::memory_order_release);
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

// The transport contract (transports/contract.hpp), checked promise by
// promise on each transport the runtime has: one typed suite, so a new
// transport is tested by adding its line to `Transports` below.  Every
// process drives the transport under test directly (no router, no checks)
// towards one peer it reaches through it: a neighbour on its node for the
// shared-memory transport, a process of the next node for libfabric (run
// with ARMCI_VNODES >= 2); the peer checks what arrived.  Where the peer also
// works on the same words, it does so through its own node's load/store
// path, so the atomicity promises hold across transports too.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "armci/route.hpp"
#include "armci/runtime.hpp"
#include "mp_test.hpp"
#include "transports/ofi/ofi.hpp"
#include "transports/ticket_lock.hpp"

using mp::me;
using mp::nproc;

namespace {

using armci::Runtime;
namespace tr = armci::transport;

// How a test reaches one transport: the object, and which process is each
// process's peer over it (-1: none; the same answer on every process).
struct ShmWay {
  static constexpr const char* kName = "shm";
  static tr::Shm* get(Runtime& r) { return r.shm.get(); }
  static int peer_of(Runtime& r, int p) {
    const auto& t = r.topo;
    std::vector<int> mates;
    for (int q = 0; q < r.nprocs(); ++q)
      if (t.node_of[static_cast<std::size_t>(q)] == t.node_of[static_cast<std::size_t>(p)]) mates.push_back(q);
    if (mates.size() < 2) return -1;
    const auto i = static_cast<std::size_t>(std::find(mates.begin(), mates.end(), p) - mates.begin());
    return mates[(i + 1) % mates.size()];
  }
};

struct OfiWay {
  static constexpr const char* kName = "ofi";
  static tr::Ofi* get(Runtime& r) { return r.ofi.get(); }
  static int peer_of(Runtime& r, int p) {
    const auto& t = r.topo;
    if (t.nnodes < 2) return -1;
    const int next = (t.node_of[static_cast<std::size_t>(p)] + 1) % t.nnodes;
    std::vector<int> there;
    for (int q = 0; q < r.nprocs(); ++q)
      if (t.node_of[static_cast<std::size_t>(q)] == next) there.push_back(q);
    return there[static_cast<std::size_t>(t.local_index[static_cast<std::size_t>(p)]) % there.size()];
  }
};

constexpr std::size_t kSlot = 4096;  // bytes each sender owns in each process's area

template <typename Way>
class Contract : public mp::MpTest {
 protected:
  void SetUp() override {
    mp::MpTest::SetUp();
    r_ = &armci::rt();
    t_ = Way::get(*r_);
    if (!t_) GTEST_SKIP() << Way::kName << ": not in this job (one node)";
    peer_ = Way::peer_of(*r_, me());
    for (int s = 0; s < nproc(); ++s) {
      if (Way::peer_of(*r_, s) == me()) senders_.push_back(s);
      if (peer_ >= 0 && Way::peer_of(*r_, s) == peer_ && first_of_peer_ < 0) first_of_peer_ = s;
    }
    first_of_peer_ = first_of_peer_ == me() ? 1 : 0;
    int any = peer_ >= 0 ? 1 : 0;
    armci_msg_igop(&any, 1, const_cast<char*>("+"));
    if (any == 0) GTEST_SKIP() << Way::kName << ": no process has a peer over it in this shape";
    area_ = std::make_unique<mp::Shared<char>>(kSlot * static_cast<std::size_t>(nproc()));
    std::memset(area_->mine(), 0, area_->size());
    ARMCI_Barrier();
  }
  void TearDown() override {
    area_.reset();
    mp::MpTest::TearDown();
  }
  bool active() const { return peer_ >= 0; }
  int node() const { return r_->topo.node_of[static_cast<std::size_t>(peer_)]; }
  // My slot in the peer's area, and a sender's slot in mine.
  char* slot_at_peer() const { return area_->of(peer_) + kSlot * static_cast<std::size_t>(me()); }
  char* slot_from(int s) const { return area_->mine() + kSlot * static_cast<std::size_t>(s); }
  uintptr_t addr(const void* p) const { return reinterpret_cast<uintptr_t>(p); }
  tr::Target target() const { return armci::route::resolve(*r_, peer_, slot_at_peer(), kSlot); }

  Runtime* r_ = nullptr;
  decltype(Way::get(std::declval<Runtime&>())) t_ = nullptr;
  int peer_ = -1;
  int first_of_peer_ = -1;  // after SetUp: 1 if I am my peer's first sender
  std::vector<int> senders_;  // ascending: senders_[0] is the first
  std::unique_ptr<mp::Shared<char>> area_;
};

using Transports = ::testing::Types<ShmWay, OfiWay>;
struct WayName {
  template <typename T>
  static std::string GetName(int) { return T::kName; }
};
TYPED_TEST_SUITE(Contract, Transports, WayName);

// put/get count in their Request until locally complete: after wait the
// source may be reused and a get's data is in place; after fence the put is
// at the target.
TYPED_TEST(Contract, PutGetCountInTheirRequest) {
  if (this->active()) {
    std::vector<char> src(kSlot);
    for (std::size_t i = 0; i < kSlot; ++i) src[i] = static_cast<char>(me() * 31 + i);
    tr::Request q;
    this->t_->put(this->target(), src.data(), this->addr(this->slot_at_peer()), kSlot, &q);
    this->t_->wait(q);
    EXPECT_EQ(q.pending.load(), 0u);
    std::fill(src.begin(), src.end(), 0);  // reusable: must not reach the peer
    std::vector<char> back(kSlot, 0);
    tr::Request g;
    this->t_->get(this->target(), this->addr(this->slot_at_peer()), back.data(), kSlot, &g);
    this->t_->wait(g);
    EXPECT_EQ(g.pending.load(), 0u);
    for (std::size_t i = 0; i < kSlot; ++i)
      ASSERT_EQ(back[i], static_cast<char>(me() * 31 + i)) << "byte " << i << " read back";
    this->t_->fence(this->node());
  }
  ARMCI_Barrier();
  for (int s : this->senders_)
    for (std::size_t i = 0; i < kSlot; ++i)
      ASSERT_EQ(this->slot_from(s)[i], static_cast<char>(s * 31 + i)) << "byte " << i << " from " << s;
}

// A null request makes the operations implicit: complete at wait_node.
TYPED_TEST(Contract, ImplicitOperationsCompleteAtWaitNode) {
  constexpr int kOps = 64;
  if (this->active()) {
    std::vector<long> src(kOps);
    for (int i = 0; i < kOps; ++i) {
      src[static_cast<std::size_t>(i)] = me() * 1000 + i;
      this->t_->put(this->target(), &src[static_cast<std::size_t>(i)],
                    this->addr(this->slot_at_peer() + 8 * i), 8, nullptr);
    }
    this->t_->wait_node(this->node());
    std::fill(src.begin(), src.end(), -1);
    std::vector<long> back(kOps, 0);
    for (int i = 0; i < kOps; ++i)
      this->t_->get(this->target(), this->addr(this->slot_at_peer() + 8 * i), &back[static_cast<std::size_t>(i)], 8,
                    nullptr);
    this->t_->wait_all();
    for (int i = 0; i < kOps; ++i) EXPECT_EQ(back[static_cast<std::size_t>(i)], me() * 1000 + i) << "word " << i;
    this->t_->fence_all();
  }
  ARMCI_Barrier();
  for (int s : this->senders_)
    for (int i = 0; i < kOps; ++i)
      EXPECT_EQ(reinterpret_cast<long*>(this->slot_from(s))[i], s * 1000 + i) << "word " << i << " from " << s;
}

// Operations to one node take effect in issue order: the last of many puts
// to one word wins, and a get after them (no wait between) reads it.
TYPED_TEST(Contract, OneNodeInIssueOrder) {
  constexpr int kOps = 200;
  if (this->active()) {
    std::vector<long> v(kOps);
    const uintptr_t w = this->addr(this->slot_at_peer());
    for (int i = 0; i < kOps; ++i) {
      v[static_cast<std::size_t>(i)] = i + 1;
      this->t_->put(this->target(), &v[static_cast<std::size_t>(i)], w, 8, nullptr);
    }
    long got = 0;
    tr::Request g;
    this->t_->get(this->target(), w, &got, 8, &g);
    this->t_->wait(g);
    EXPECT_EQ(got, kOps) << "a get after " << kOps << " puts to one word";
    this->t_->fence(this->node());
  }
  ARMCI_Barrier();
  for (int s : this->senders_) EXPECT_EQ(*reinterpret_cast<long*>(this->slot_from(s)), kOps) << "from " << s;
}

// Strided and piece transfers land exactly on their bytes, nothing between.
TYPED_TEST(Contract, StridedAndPiecesLandExactly) {
  // 8 rows of 24 bytes every 64 bytes; pieces: 16 bytes every 96 from 1024.
  if (this->active()) {
    std::vector<char> src(8 * 24);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(1 + i % 120);
    const int cnt[2] = {24, 8};
    const int ss[1] = {24};
    const int ds[1] = {64};
    tr::StridedShape shape(1, cnt, ss, ds);
    tr::Request q;
    this->t_->put_strided(this->target(), src.data(), this->addr(this->slot_at_peer()), shape, &q);
    std::vector<char> pc(8 * 16);
    for (std::size_t i = 0; i < pc.size(); ++i) pc[i] = static_cast<char>(-1 - static_cast<int>(i % 100));
    std::vector<tr::Piece> ps;
    for (int k = 0; k < 8; ++k)
      ps.push_back({pc.data() + 16 * k, this->addr(this->slot_at_peer() + 1024 + 96 * k), 16});
    this->t_->put_pieces(this->target(), ps, &q);
    this->t_->wait(q);
    // Read both back the same ways.
    std::vector<char> back(8 * 24, 0);
    const int bs[1] = {24};
    tr::StridedShape rshape(1, cnt, ds, bs);
    tr::Request g;
    this->t_->get_strided(this->target(), this->addr(this->slot_at_peer()), back.data(), rshape, &g);
    std::vector<char> pback(8 * 16, 0);
    std::vector<tr::Piece> gs;
    for (int k = 0; k < 8; ++k)
      gs.push_back({pback.data() + 16 * k, this->addr(this->slot_at_peer() + 1024 + 96 * k), 16});
    this->t_->get_pieces(this->target(), gs, &g);
    this->t_->wait(g);
    EXPECT_EQ(back, src);
    EXPECT_EQ(pback, pc);
    this->t_->fence(this->node());
  }
  ARMCI_Barrier();
  for (int s : this->senders_) {
    const char* a = this->slot_from(s);
    for (std::size_t b = 0; b < 1024 + 96 * 8; ++b) {
      char want = 0;
      if (b < 8 * 64 && b % 64 < 24) want = static_cast<char>(1 + (b / 64 * 24 + b % 64) % 120);
      if (b >= 1024 && (b - 1024) % 96 < 16) want = static_cast<char>(-1 - static_cast<int>(((b - 1024) / 96 * 16 + (b - 1024) % 96) % 100));
      ASSERT_EQ(a[b], want) << "byte " << b << " from " << s;
    }
  }
}

// Accumulates apply atomically per element with every other accumulate,
// also with the target's own (load/store) ones on the same words; acc and
// acc_strided and acc_pieces return with the source reusable.
TYPED_TEST(Contract, AccumulatesAreAtomicWithTheTargets) {
  constexpr int kRounds = 300, kWords = 16;
  const long one = 1;
  std::thread own;
  if (!this->senders_.empty()) {
    // The target adds to the first sender's words itself, meanwhile.
    char* w = this->slot_from(this->senders_[0]);
    own = std::thread([&, w] {
      std::vector<long> ones(kWords, 1);
      for (int i = 0; i < kRounds; ++i)
        this->r_->shm->acc(tr::Target{}, ARMCI_ACC_LNG, &one, ones.data(), this->addr(w), 8 * kWords);
    });
  }
  if (this->active()) {
    std::vector<long> ones(kWords, 1);
    std::vector<tr::Piece> ps;
    for (int k = 0; k < kWords; ++k) ps.push_back({&ones[static_cast<std::size_t>(k)], this->addr(this->slot_at_peer() + 8 * k), 8});
    const int cnt[2] = {8 * kWords, 1};
    tr::StridedShape shape(1, cnt, nullptr, nullptr);
    for (int i = 0; i < kRounds; ++i) {
      switch (i % 3) {
        case 0: this->t_->acc(this->target(), ARMCI_ACC_LNG, &one, ones.data(), this->addr(this->slot_at_peer()), 8 * kWords); break;
        case 1: this->t_->acc_strided(this->target(), ARMCI_ACC_LNG, &one, ones.data(), this->addr(this->slot_at_peer()), shape); break;
        default: this->t_->acc_pieces(this->target(), ARMCI_ACC_LNG, &one, ps); break;
      }
    }
    this->t_->fence(this->node());
  }
  if (own.joinable()) own.join();
  ARMCI_Barrier();
  for (std::size_t j = 0; j < this->senders_.size(); ++j)
    for (int k = 0; k < kWords; ++k)
      EXPECT_EQ(reinterpret_cast<long*>(this->slot_from(this->senders_[j]))[k], kRounds * (j == 0 ? 2 : 1))
          << "word " << k << " from " << this->senders_[j];
}

// rmw is done on return and atomic with every other rmw on the word: the
// values fetched by the sender and by the target never repeat.
TYPED_TEST(Contract, RmwIsAtomicWithTheTargets) {
  constexpr int kRounds = 300;
  std::vector<long> seen;
  std::thread own;
  if (!this->senders_.empty()) {
    char* w = this->slot_from(this->senders_[0]);
    own = std::thread([&, w] {
      for (int i = 0; i < kRounds; ++i) {
        long old = 0;
        this->r_->shm->rmw(tr::Target{}, ARMCI_FETCH_AND_ADD_LONG, &old, this->addr(w), 1);
        seen.push_back(old);
      }
    });
  }
  std::vector<long> mine;
  if (this->active()) {
    for (int i = 0; i < kRounds; ++i) {
      long old = -1;
      this->t_->rmw(this->target(), ARMCI_FETCH_AND_ADD_LONG, &old, this->addr(this->slot_at_peer()), 1);
      mine.push_back(old);
    }
  }
  if (own.joinable()) own.join();
  ARMCI_Barrier();
  // The target's fetched values and the first sender's together are
  // 0 .. 2*kRounds-1 exactly once: gather the sender's to its target.
  std::vector<long> all(static_cast<std::size_t>(nproc()) * kRounds, 0);
  if (this->active()) std::copy(mine.begin(), mine.end(), all.begin() + static_cast<long>(me()) * kRounds);
  armci_msg_lgop(all.data(), static_cast<int>(all.size()), const_cast<char*>("+"));
  if (!this->senders_.empty()) {
    const int s = this->senders_[0];
    std::vector<long> v(all.begin() + static_cast<long>(s) * kRounds, all.begin() + static_cast<long>(s + 1) * kRounds);
    v.insert(v.end(), seen.begin(), seen.end());
    std::sort(v.begin(), v.end());
    for (int i = 0; i < 2 * kRounds; ++i) ASSERT_EQ(v[static_cast<std::size_t>(i)], i) << "fetched values of " << s << " and mine";
  }
}

// A signal applies its payload, then its flag, then the wake-up: when the
// flag shows, the payload is there.
TYPED_TEST(Contract, SignalPayloadBeforeFlag) {
  constexpr int kRounds = 50;
  // Word 0 is the flag; the payload is 256 bytes from 64.
  std::thread watch;
  std::atomic<int> bad{0};
  if (!this->senders_.empty()) {
    char* a = this->slot_from(this->senders_[0]);
    watch = std::thread([&, a] {
      auto* flag = reinterpret_cast<std::atomic<uint32_t>*>(a);
      for (uint32_t k = 1; k <= kRounds; ++k) {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (flag->load(std::memory_order_acquire) < k) {
          if (std::chrono::steady_clock::now() > give_up) {
            bad.fetch_add(1000000);  // never announced: fail, do not hang
            return;
          }
          std::this_thread::yield();
        }
        for (int b = 0; b < 256; ++b)
          if (static_cast<unsigned char>(a[64 + b]) < (k & 0xff) && k < 256) bad.fetch_add(1);
      }
    });
  }
  if (this->active()) {
    std::vector<unsigned char> payload(256);
    for (uint32_t k = 1; k <= kRounds; ++k) {
      std::fill(payload.begin(), payload.end(), static_cast<unsigned char>(k));
      tr::Signal s;
      s.data_dst = this->addr(this->slot_at_peer() + 64);
      s.data = payload.data();
      s.len = 256;
      s.flag_op = tr::FlagOp::Store;
      s.flag = this->addr(this->slot_at_peer());
      s.flag_val = k;
      s.fenced = true;
      this->t_->signal(this->node(), s);
    }
    this->t_->fence(this->node());
  }
  if (watch.joinable()) watch.join();
  ARMCI_Barrier();
  EXPECT_EQ(bad.load(), 0) << "payload bytes older than the flag that announced them";
}

// lock/unlock: mutual exclusion with the target's own lockers, and unlock
// first completes the writes made under the lock (a read-modify-write of a
// plain counter through the transport loses nothing).
TYPED_TEST(Contract, LockExcludesAndUnlockCompletesWrites) {
  constexpr int kRounds = 40;
  // The lock at byte 0 of the sender's slot, the counter at 64.
  std::thread own;
  if (!this->senders_.empty()) {
    char* a = this->slot_from(this->senders_[0]);
    own = std::thread([&, a] {
      for (int i = 0; i < kRounds; ++i) {
        this->r_->shm->lock(0, this->addr(a));
        long* c = reinterpret_cast<long*>(a + 64);
        const long v = *c;
        std::this_thread::yield();
        *c = v + 1;
        this->r_->shm->unlock(0, this->addr(a));
      }
    });
  }
  if (this->active()) {
    const uintptr_t l = this->addr(this->slot_at_peer());
    const uintptr_t c = l + 64;
    for (int i = 0; i < kRounds; ++i) {
      this->t_->lock(this->node(), l);
      long v = 0;
      tr::Request g;
      this->t_->get(this->target(), c, &v, 8, &g);
      this->t_->wait(g);
      ++v;
      this->t_->put(this->target(), &v, c, 8, nullptr);
      this->t_->wait_node(this->node());
      this->t_->unlock(this->node(), l);
    }
  }
  if (own.joinable()) own.join();
  ARMCI_Barrier();
  if (!this->senders_.empty()) {
    EXPECT_EQ(*reinterpret_cast<long*>(this->slot_from(this->senders_[0]) + 64), 2 * kRounds)
        << "increments under the lock from " << this->senders_[0] << " and mine";
  }
}

// trylock fails while another holds the lock and succeeds once it is free.
TYPED_TEST(Contract, TrylockSeesTheHolder) {
  // The lock at byte 0 of the first sender's slot: the target holds it first.
  char* a = this->senders_.empty() ? nullptr : this->slot_from(this->senders_[0]);
  if (a) this->r_->shm->lock(0, this->addr(a));
  ARMCI_Barrier();
  const bool trying = this->active() && this->first_of_peer_;
  const uintptr_t l = trying ? this->addr(this->slot_at_peer()) : 0;
  if (trying) {
    EXPECT_FALSE(this->t_->trylock(this->node(), l)) << "while process " << this->peer_ << " holds it";
  }
  ARMCI_Barrier();
  if (a) this->r_->shm->unlock(0, this->addr(a));
  ARMCI_Barrier();
  if (trying) {
    EXPECT_TRUE(this->t_->trylock(this->node(), l)) << "once process " << this->peer_ << " released it";
    this->t_->unlock(this->node(), l);
  }
  ARMCI_Barrier();
  if (a) {
    auto* k = reinterpret_cast<tr::TicketLock*>(a);
    EXPECT_EQ(k->next.load(), k->serving.load()) << "the lock is free at the end";
  }
}

// progress never blocks: it returns at once with nothing outstanding.
TYPED_TEST(Contract, ProgressReturns) {
  for (int i = 0; i < 1000; ++i) this->t_->progress();
  SUCCEED();
}

}  // namespace

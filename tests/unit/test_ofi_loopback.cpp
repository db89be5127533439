// The libfabric transport on its own: built from an explicit context in one
// process, with no launcher, PMIx, heap or agent.  The "other node" is a bare
// endpoint with one registered buffer (a thread drives its progress); puts,
// gets, strided and piece transfers, blocking and with a Request, land
// exactly where the contract says.
#include <gtest/gtest.h>
#include <rdma/fi_domain.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "transports/ofi/context.hpp"
#include "transports/ofi/fabric.hpp"
#include "transports/ofi/ofi.hpp"

namespace t = armci::transport;

namespace {

class OfiLoopback : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("FI_TCP_IFACE", "lo", 0);
    t::ofi::EndpointOptions o;
    const char* p = std::getenv("FI_PROVIDER");
    o.provider = p && *p ? p : "tcp;ofi_rxm";
    o.role = "test target";
    target_ = std::make_unique<t::ofi::Endpoint>(o);
    mem_.assign(kBytes, 0);
    mr_ = target_->register_memory(mem_.data(), kBytes, FI_REMOTE_READ | FI_REMOTE_WRITE, 7);
    poller_ = std::thread([this] {
      fi_cq_data_entry e[8];
      while (!stop_.load()) {
        if (fi_cq_read(target_->cq, e, 8) <= 0) std::this_thread::yield();
      }
    });

    t::OfiContext c;
    c.endpoint = o;
    c.endpoint.role = "test initiator";
    c.pack_below = 0;  // pieces go as RMA: there is no agent for active messages
    c.coalesce.on = false;  // nor for batches
    c.me = 1;
    c.node_leader = {0};
    c.procs_outside = {1};
    c.stats = &stats_;
    ofi_ = std::make_unique<t::Ofi>(c);
    ofi_->connect({target_->name()}, {}, 0);
    target_->insert({ofi_->address()}, "test initiator");
    uint64_t keys[armci::memory::kMaxNics] = {fi_mr_key(mr_)};
    ofi_->learn_node(0, base(), 0, kBytes, keys);
  }
  void TearDown() override {
    ofi_.reset();
    stop_ = true;
    poller_.join();
    target_.reset();
  }
  uintptr_t base() const { return reinterpret_cast<uintptr_t>(mem_.data()); }
  // A blocking call as the router makes one: a request of its own, waited for.
  template <typename F>
  void blocking(F&& f) {
    t::Request q;
    f(&q);
    ofi_->wait(q);
  }

  static constexpr std::size_t kBytes = 1 << 16;
  std::vector<char> mem_;
  std::unique_ptr<t::ofi::Endpoint> target_;
  fid_mr* mr_ = nullptr;
  std::thread poller_;
  std::atomic<bool> stop_{false};
  t::OfiStats stats_;
  std::unique_ptr<t::Ofi> ofi_;
  const t::Target node0_{};  // unresolved: the transport finds the key itself
};

}  // namespace

TEST_F(OfiLoopback, PutThenGetAfterFence) {
  const char msg[] = "eight b";
  blocking([&](t::Request* q) { ofi_->put(node0_, msg, base() + 100, 8, q); });
  ofi_->fence(0);
  EXPECT_EQ(std::memcmp(mem_.data() + 100, msg, 8), 0);
  char back[8] = {};
  blocking([&](t::Request* q) { ofi_->get(node0_, base() + 100, back, 8, q); });
  EXPECT_EQ(std::memcmp(back, msg, 8), 0);
  EXPECT_EQ(mem_[99], 0);
  EXPECT_EQ(mem_[108], 0);
  EXPECT_EQ(static_cast<uint64_t>(stats_.remote_ops), 2u);
}

TEST_F(OfiLoopback, LargeNonBlockingPutCompletesItsRequest) {
  std::vector<char> src(40000);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 7 + 1);
  t::Request req;
  ofi_->put(node0_, src.data(), base() + 1000, src.size(), &req);
  ofi_->wait(req);
  EXPECT_EQ(req.pending.load(), 0u);
  ofi_->fence(0);
  EXPECT_EQ(std::memcmp(mem_.data() + 1000, src.data(), src.size()), 0);
}

TEST_F(OfiLoopback, StridedAndPiecesLandExactly) {
  // 16 rows of 64 bytes, 256 apart at the target.
  std::vector<char> rows(16 * 64);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<char>(i % 251 + 1);
  int count[2] = {64, 16}, src_stride[1] = {64}, dst_stride[1] = {256};
  t::StridedShape s(1, count, src_stride, dst_stride);
  ofi_->put_strided(node0_, rows.data(), base() + 8192, s, nullptr);  // implicit
  ofi_->wait_all();
  ofi_->fence(0);
  for (int r = 0; r < 16; ++r) {
    ASSERT_EQ(std::memcmp(mem_.data() + 8192 + 256 * r, rows.data() + 64 * r, 64), 0) << "row " << r;
    EXPECT_EQ(mem_[static_cast<std::size_t>(8192 + 256 * r + 64)], 0) << "gap after row " << r;
  }
  std::vector<char> back(rows.size(), 0);
  t::StridedShape g(1, count, dst_stride, src_stride);
  blocking([&](t::Request* q) { ofi_->get_strided(node0_, base() + 8192, back.data(), g, q); });
  EXPECT_EQ(back, rows);
  // Pieces in the other direction: gather two rows back out of order.
  char a[64], b[64];
  std::vector<t::Piece> ps = {{a, base() + 8192 + 256 * 5, 64}, {b, base() + 8192, 64}};
  ofi_->get_pieces(node0_, ps, nullptr);
  ofi_->wait_node(0);
  EXPECT_EQ(std::memcmp(a, rows.data() + 64 * 5, 64), 0);
  EXPECT_EQ(std::memcmp(b, rows.data(), 64), 0);
}

// A Target resolved once (as ARMCI_Malloc does) carries the key and NIC
// address: operations inside it search nothing; an address outside it is
// still found, through the segment table.
TEST_F(OfiLoopback, ResolvedTargetSkipsTheKeySearch) {
  const t::Target at = ofi_->resolve(0, base() + 4096, 1024);
  ASSERT_TRUE(at.keyed);
  EXPECT_EQ(at.key, fi_mr_key(mr_));
  EXPECT_EQ(at.node, 0);
  const uint64_t searches = stats_.key_searches;
  std::vector<char> src(1024);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i % 253 + 1);
  blocking([&](t::Request* q) { ofi_->put(at, src.data(), base() + 4096, src.size(), q); });
  std::vector<t::Piece> ps = {{src.data(), base() + 4096 + 512, 16}, {src.data() + 16, base() + 4096, 16}};
  blocking([&](t::Request* q) { ofi_->put_pieces(at, ps, q); });
  ofi_->fence(0);
  EXPECT_EQ(static_cast<uint64_t>(stats_.key_searches), searches);
  EXPECT_EQ(std::memcmp(mem_.data() + 4096 + 16, src.data() + 16, 496), 0);
  EXPECT_EQ(std::memcmp(mem_.data() + 4096, src.data() + 16, 16), 0);
  EXPECT_EQ(std::memcmp(mem_.data() + 4096 + 512, src.data(), 16), 0);
  EXPECT_EQ(mem_[4096 + 1024], 0);

  char back[8] = {};
  blocking([&](t::Request* q) { ofi_->get(at, base() + 100, back, 8, q); });  // outside [lo, hi)
  EXPECT_EQ(static_cast<uint64_t>(stats_.key_searches), searches + 1);
  blocking([&](t::Request* q) { ofi_->get(at, base() + 4096 + 24, back, 8, q); });
  EXPECT_EQ(std::memcmp(back, src.data() + 24, 8), 0);
  EXPECT_EQ(static_cast<uint64_t>(stats_.key_searches), searches + 1);

  // A range this process knows no segment for stays unkeyed.
  EXPECT_FALSE(ofi_->resolve(0, base() + kBytes + 4096, 64).keyed);
}

// Batches of coalesced operations (transports/ofi/coalescer.hpp,
// batch_wire.hpp): what the initiator builds, the agent's decoder accepts
// record for record, and what it must refuse.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "armci/armci.h"
#include "transports/ofi/am_check.hpp"
#include "transports/ofi/batch_wire.hpp"
#include "transports/ofi/coalesce_timer.hpp"
#include "transports/ofi/coalescer.hpp"

using namespace armci::transport;
using namespace armci::transport::ofi;

namespace {

constexpr uintptr_t kHeap = 0x10000;
constexpr std::size_t kHeapBytes = 1 << 20;

AmLimits limits() {
  AmLimits l;
  l.heap_lo = kHeap;
  l.heap_bytes = kHeapBytes;
  l.nprocs = 4;
  return l;
}

std::vector<char> message(const Batch& b) {
  AmHeader h{};
  h.op = static_cast<uint16_t>(AmOp::Batch);
  h.origin = 1;
  h.npieces = b.count();
  h.payload = static_cast<uint32_t>(b.bytes());
  std::vector<char> m(sizeof h + b.bytes());
  std::memcpy(m.data(), &h, sizeof h);
  std::memcpy(m.data() + sizeof h, b.records(), b.bytes());
  return m;
}

const char* decode(const std::vector<char>& m, AmView* v = nullptr) {
  AmView local;
  bool origin_ok = false;
  return am_decode(m.data(), m.size(), limits(), v ? v : &local, &origin_ok);
}

std::string why(const std::vector<char>& m) {
  const char* w = decode(m);
  return w ? w : "";
}

}  // namespace

TEST(Batch, RecordsRoundTripInIssueOrder) {
  Batch b;
  const char put_data[12] = "twelve byte";
  const double scale[2] = {2.0, 0.0};
  const double acc_data[3] = {1, 2, 3};
  char get_dst[40];
  Request req;
  ASSERT_TRUE(b.fits(BatchKind::Put, sizeof put_data));
  b.put(kHeap + 8, put_data, sizeof put_data);
  b.acc(ARMCI_ACC_DBL, scale, sizeof(double), kHeap + 64, acc_data, sizeof acc_data);
  b.get(kHeap + 128, get_dst, sizeof get_dst, &req);
  b.get(kHeap + 256, get_dst, 8, nullptr);
  EXPECT_EQ(b.count(), 4u);
  EXPECT_EQ(b.bytes(), batch_record_bytes(BatchKind::Put, 12) + batch_record_bytes(BatchKind::Acc, 24) +
                           2 * sizeof(BatchRecord));
  ASSERT_EQ(b.gets().size(), 2u);
  EXPECT_EQ(b.gets()[0].req, &req);
  EXPECT_EQ(b.get_bytes(), 48u);
  const std::vector<char> m = message(b);
  AmView v;
  ASSERT_EQ(decode(m, &v), nullptr);
  std::vector<BatchItem> items;
  for_each_record(v.data, v.h.npieces, [&](const BatchItem& i) { items.push_back(i); });
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].kind, BatchKind::Put);
  EXPECT_EQ(items[0].addr, kHeap + 8);
  EXPECT_EQ(std::memcmp(items[0].data, put_data, sizeof put_data), 0);
  EXPECT_EQ(items[1].kind, BatchKind::Acc);
  EXPECT_EQ(items[1].type, ARMCI_ACC_DBL);
  double s;
  std::memcpy(&s, items[1].scale, sizeof s);
  EXPECT_EQ(s, 2.0);
  EXPECT_EQ(std::memcmp(items[1].data, acc_data, sizeof acc_data), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(items[1].data) % 8, reinterpret_cast<uintptr_t>(v.data) % 8)
      << "accumulate data keeps the message's 8-byte alignment";
  EXPECT_EQ(items[2].kind, BatchKind::Get);
  EXPECT_EQ(items[2].len, 40u);
  EXPECT_EQ(items[3].addr, kHeap + 256);
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(b.gets().empty());
}

// Puts that continue one another share a record; anything else (a gap, a
// put that does not end on a whole word, another kind between) starts a
// new one.  The agent sees the same bytes at the same addresses.
TEST(Batch, ConsecutivePutsShareOneRecord) {
  Batch b;
  std::vector<double> v(300);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) + 0.5;
  for (std::size_t i = 0; i < 256; ++i) {
    ASSERT_TRUE(b.fits(BatchKind::Put, 8));
    b.put(kHeap + 8 * i, &v[i], 8);
  }
  EXPECT_EQ(b.count(), 1u);
  EXPECT_EQ(b.first().len, 256u * 8);
  EXPECT_EQ(b.bytes(), batch_record_bytes(BatchKind::Put, 256 * 8));
  b.put(kHeap + 8 * 256 + 8, &v[257], 8);  // a gap of one word
  b.put(kHeap + 8 * 258, &v[258], 8);      // continues the previous one
  char odd[5] = {1, 2, 3, 4, 5};
  b.put(kHeap + 8 * 259, odd, 5);      // continues it too, ending inside a word
  b.put(kHeap + 8 * 259 + 5, odd, 3);  // after a partial word: its own record
  b.get(kHeap + 4096, nullptr, 8, nullptr);
  b.put(kHeap + 4104, &v[0], 8);  // after a get: its own record
  b.put(kHeap + 4112, &v[1], 8);
  EXPECT_EQ(b.count(), 5u);
  AmView view;
  const std::vector<char> m = message(b);
  ASSERT_EQ(decode(m, &view), nullptr);
  std::vector<BatchItem> items;
  for_each_record(view.data, view.h.npieces, [&](const BatchItem& i) { items.push_back(i); });
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items[0].addr, kHeap);
  EXPECT_EQ(std::memcmp(items[0].data, v.data(), 256 * 8), 0);
  EXPECT_EQ(items[1].addr, kHeap + 8 * 257);
  EXPECT_EQ(items[1].len, 21u);
  EXPECT_EQ(std::memcmp(items[1].data, &v[257], 16), 0);
  EXPECT_EQ(std::memcmp(items[1].data + 16, odd, 5), 0);
  EXPECT_EQ(items[2].addr, kHeap + 8 * 259 + 5);
  EXPECT_EQ(items[2].len, 3u);
  EXPECT_EQ(items[3].kind, BatchKind::Get);
  EXPECT_EQ(items[4].addr, kHeap + 4104);
  EXPECT_EQ(items[4].len, 16u);
  // A batch that filled with one growing record still fits one message.
  Batch full;
  std::vector<char> big(kBatchRoom, 7);
  std::size_t n = 0;
  while (full.fits(BatchKind::Put, 64)) {
    full.put(kHeap + 64 * n, big.data() + 64 * n, 64);
    ++n;
  }
  EXPECT_EQ(full.count(), 1u);
  EXPECT_LE(full.bytes(), kBatchRoom);
  EXPECT_EQ(full.first().len, 64 * n);
  EXPECT_EQ(decode(message(full)), nullptr);
}

TEST(Batch, FitsOneMessageAndOneReply) {
  Batch b;
  std::vector<char> src(1000, 1), dst(kBatchReplyRoom);
  std::size_t puts = 0;
  while (b.fits(BatchKind::Put, src.size())) {
    b.put(kHeap, src.data(), src.size());
    ++puts;
  }
  EXPECT_EQ(puts, kBatchRoom / batch_record_bytes(BatchKind::Put, 1000));
  EXPECT_LE(b.bytes(), kBatchRoom);
  EXPECT_EQ(decode(message(b)), nullptr);
  // Gets are bounded by the reply: one of the whole reply fits, one byte more does not.
  Batch g;
  EXPECT_FALSE(g.fits(BatchKind::Get, kBatchReplyRoom + 1));
  ASSERT_TRUE(g.fits(BatchKind::Get, kBatchReplyRoom));
  g.get(kHeap, dst.data(), kBatchReplyRoom, nullptr);
  EXPECT_FALSE(g.fits(BatchKind::Get, 1));
  EXPECT_TRUE(g.fits(BatchKind::Put, 8));
  EXPECT_EQ(decode(message(g)), nullptr);
}

TEST(Batch, DecoderRefusesMalformedRecords) {
  Batch b;
  const long v = 7;
  b.put(kHeap, &v, sizeof v);
  b.get(kHeap + 64, nullptr, 8, nullptr);
  const std::vector<char> good = message(b);
  ASSERT_EQ(decode(good), nullptr);
  const std::size_t first = sizeof(AmHeader);
  auto with = [&](auto&& edit) {
    std::vector<char> m = good;
    edit(m);
    return m;
  };
  auto record = [&](std::vector<char>& m, std::size_t at, auto&& edit) {
    BatchRecord r;
    std::memcpy(&r, m.data() + at, sizeof r);
    edit(r);
    std::memcpy(m.data() + at, &r, sizeof r);
  };
  const std::size_t second = first + batch_record_bytes(BatchKind::Put, 8);
  EXPECT_EQ(why(with([&](auto& m) { record(m, first, [](BatchRecord& r) { r.kind = 4; }); })),
            "unknown kind of batch record");
  EXPECT_EQ(why(with([&](auto& m) { record(m, first, [](BatchRecord& r) { r.len = 0; }); })),
            "batch record length out of range");
  EXPECT_EQ(why(with([&](auto& m) { record(m, second, [](BatchRecord& r) { r.addr = kHeap + kHeapBytes - 4; }); })),
            "batch record outside the node heap");
  EXPECT_EQ(why(with([&](auto& m) { record(m, second, [](BatchRecord& r) { r.addr = kHeap - 8; }); })),
            "batch record outside the node heap");
  EXPECT_EQ(why(with([&](auto& m) { record(m, first, [](BatchRecord& r) { r.type = ARMCI_ACC_DBL; }); })),
            "type on a put or get record");
  // A put whose length runs past the message.
  EXPECT_EQ(why(with([&](auto& m) { record(m, second, [](BatchRecord& r) { r.kind = 1; }); })),
            "batch record beyond the message");
  EXPECT_EQ(why(with([&](auto& m) { m.push_back(0); })), "batch size does not match the bytes received");
  EXPECT_EQ(why(with([&](auto& m) {
              m.resize(m.size() + 8);
              AmHeader h;
              std::memcpy(&h, m.data(), sizeof h);
              h.payload += 8;
              std::memcpy(m.data(), &h, sizeof h);
            })),
            "bytes after the last batch record");
  EXPECT_EQ(why(with([&](auto& m) {
              AmHeader h;
              std::memcpy(&h, m.data(), sizeof h);
              h.npieces = 3;
              std::memcpy(m.data(), &h, sizeof h);
            })),
            "batch record beyond the message");
  // Accumulates: a known type and whole elements.
  Batch a;
  const double d[2] = {1, 2};
  a.acc(ARMCI_ACC_DBL, d, 8, kHeap, d, sizeof d);
  const std::vector<char> acc = message(a);
  ASSERT_EQ(decode(acc), nullptr);
  std::vector<char> m = acc;
  record(m, first, [](BatchRecord& r) { r.type = 99; });
  EXPECT_EQ(why(m), "unknown accumulate type");
  m = acc;
  record(m, first, [](BatchRecord& r) { r.type = ARMCI_ACC_CPL; r.len = 12; });
  EXPECT_EQ(why(m), "accumulate record not a whole number of elements");
}

// A lone accumulate (AccOne): the header names its address, the data
// follows; header and 8 bytes make 64, tcp;ofi_rxm's inject size.
TEST(Batch, LoneAccumulateDecodesAndIsChecked) {
  auto acc_one = [](int type, uint64_t addr, std::size_t len, std::size_t sent) {
    AmHeader h{};
    h.op = static_cast<uint16_t>(AmOp::AccOne);
    h.type = static_cast<uint16_t>(type);
    h.origin = 2;
    h.arg0 = addr;
    h.payload = static_cast<uint32_t>(len);
    std::vector<char> m(sizeof h + sent, 0);
    const double v = 1.5;
    if (sent >= sizeof v) std::memcpy(m.data() + sizeof h, &v, sizeof v);
    std::memcpy(m.data(), &h, sizeof h);
    return m;
  };
  std::vector<char> ok = acc_one(ARMCI_ACC_DBL, kHeap + 64, 8, 8);
  EXPECT_EQ(ok.size(), 64u);
  AmView v;
  ASSERT_EQ(decode(ok, &v), nullptr);
  double got;
  std::memcpy(&got, v.data, sizeof got);
  EXPECT_EQ(got, 1.5);
  EXPECT_EQ(v.data, ok.data() + sizeof(AmHeader));
  EXPECT_EQ(why(acc_one(ARMCI_ACC_INT, kHeap, 4, 4)), "");
  EXPECT_EQ(why(acc_one(ARMCI_ACC_DBL, kHeap, 8, 16)), "payload size does not match the bytes received");
  EXPECT_EQ(why(acc_one(ARMCI_ACC_DBL, kHeap, 0, 0)), "payload size does not match the bytes received");
  EXPECT_EQ(why(acc_one(ARMCI_ACC_DBL, kHeap, 4, 4)), "accumulate piece not a whole number of elements");
  EXPECT_EQ(why(acc_one(999, kHeap, 8, 8)), "unknown accumulate type");
  EXPECT_EQ(why(acc_one(ARMCI_ACC_DBL, kHeap - 8, 8, 8)), "piece outside the node heap");
  EXPECT_EQ(why(acc_one(ARMCI_ACC_DBL, kHeap + kHeapBytes - 4, 8, 8)), "piece outside the node heap");
  std::vector<char> table = acc_one(ARMCI_ACC_DBL, kHeap, 8, 8);
  AmHeader h;
  std::memcpy(&h, table.data(), sizeof h);
  h.npieces = 1;
  std::memcpy(table.data(), &h, sizeof h);
  EXPECT_EQ(why(table), "lone accumulate carries a piece table");
}

TEST(Batch, TakesBySizeAndAggregateHandles) {
  CoalesceConfig on;
  on.op_max = 2048;
  Coalescer c(on, 3);
  EXPECT_TRUE(c.takes(2048, false));
  EXPECT_FALSE(c.takes(2049, false));
  EXPECT_TRUE(c.takes(4096, true)) << "an aggregate handle gathers larger operations";
  EXPECT_FALSE(c.takes(kBatchRoom, true));
  CoalesceConfig off = on;
  off.on = false;
  Coalescer d(off, 3);
  EXPECT_FALSE(d.takes(8, false));
  EXPECT_TRUE(d.takes(8, true)) << "aggregate handles gather with coalescing off";
  EXPECT_FALSE(c.is_open(1));
  EXPECT_EQ(c.oldest_open(), 0);
  EXPECT_EQ(c.open_count(), 0);
  c.opened(1, 42);
  c.opened(2, 40);
  EXPECT_EQ(c.open_count(), 2);
  EXPECT_EQ(c.oldest_open(), 40);
  EXPECT_FALSE(c.aged(1, 41)) << "opened at 42";
  EXPECT_TRUE(c.aged(1, 42));
  c.closed(2);
  EXPECT_EQ(c.oldest_open(), 42) << "the oldest batch still open";
  c.closed(1);
  EXPECT_FALSE(c.aged(1, 100)) << "closed batches are never due";
  EXPECT_EQ(c.open_count(), 0);
  EXPECT_EQ(c.oldest_open(), 0);
}

// The timer asks for the batches that are due, no earlier than the delay
// after the oldest opened, and sleeps while none is open.
TEST(Batch, TimerSendsWhatIsDueAfterTheDelay) {
  std::atomic<int64_t> oldest{0};
  std::atomic<int> sends{0};
  std::atomic<int64_t> sent_at{0};
  CoalesceTimer t;
  constexpr int64_t kDelay = 2'000'000;  // 2 ms
  t.start(kDelay, {.oldest_open = [&] { return oldest.load(); },
                   .send_due = [&](int64_t) {
                     if (oldest.exchange(0)) {
                       sent_at = steady_ns();
                       ++sends;
                     }
                     return true;
                   }});
  const int64_t opened = steady_ns();
  oldest = opened;
  t.opened(opened);
  const int64_t give_up = opened + 5'000'000'000;
  while (sends.load() == 0 && steady_ns() < give_up) std::this_thread::sleep_for(std::chrono::microseconds(200));
  EXPECT_EQ(sends.load(), 1) << "the open batch was never sent";
  EXPECT_GE(sent_at.load(), opened + kDelay) << "sent before its delay had passed";
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(sends.load(), 1) << "sent twice";
  t.stop();
  EXPECT_FALSE(t.running());
}

// Strided messages named by shape (StridedWire): the walk each end runs from
// any piece on (transports/strided.hpp walk_side), the agent's checks of a
// shape it cannot trust (transports/ofi/am_check.hpp), and the 8 bytes of
// remote CQ data a staged write announces itself with.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <random>
#include <vector>

#include "armci/armci.h"
#include "transports/ofi/am_check.hpp"
#include "transports/strided.hpp"

using namespace armci::transport;
using namespace armci::transport::ofi;

namespace {

constexpr uintptr_t kHeap = 0x100000;
constexpr std::size_t kHeapBytes = 8 << 20;
constexpr std::size_t kSlot = 256 << 10;

AmLimits limits() {
  AmLimits lim{kHeap, kHeapBytes, 4};
  lim.stage_slot = kSlot;
  lim.stage_slots = kStageSlots;
  return lim;
}

StridedWire rows(uint64_t base, int64_t row, int64_t n, int64_t stride, uint64_t first, uint32_t pieces) {
  StridedWire w{};
  w.base = base;
  w.first = first;
  w.pieces = pieces;
  w.levels = 1;
  w.count[0] = row;
  w.count[1] = n;
  w.stride[0] = stride;
  return w;
}

// A message of kind op carrying w and, unless it is a get, its payload.
std::vector<char> message(AmOp op, const StridedWire& w, int type = 0, long extra = 0) {
  AmHeader h{};
  h.op = static_cast<uint16_t>(op);
  h.type = static_cast<uint16_t>(type);
  h.origin = 1;
  const bool get = op == AmOp::StagedGetStrided;
  const uint64_t payload = get ? 0 : uint64_t{w.pieces} * static_cast<uint64_t>(w.count[0]);
  h.payload = static_cast<uint32_t>(payload);
  std::vector<char> m(sizeof h + sizeof w + payload + static_cast<std::size_t>(extra), 'x');
  std::memcpy(m.data(), &h, sizeof h);
  std::memcpy(m.data() + sizeof h, &w, sizeof w);
  return m;
}

const char* decode(const std::vector<char>& m, std::size_t max_len = kAmMax) {
  AmLimits lim = limits();
  lim.max_len = max_len;
  AmView v;
  bool origin_ok = false;
  return am_decode(m.data(), m.size(), lim, &v, &origin_ok);
}

}  // namespace

// From any first piece, walk_side visits what for_each_piece visits there:
// random shapes of 1..8 levels, random windows.
TEST(AmStrided, WalkFromAnyPieceMatchesTheFullWalk) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 300; ++trial) {
    const int levels = 1 + static_cast<int>(rng() % ARMCI_MAX_STRIDE_LEVEL);
    int count[ARMCI_MAX_STRIDE_LEVEL + 1], ss[ARMCI_MAX_STRIDE_LEVEL], ds[ARMCI_MAX_STRIDE_LEVEL];
    count[0] = 1 + static_cast<int>(rng() % 64);
    int src_ext = count[0], dst_ext = count[0];
    for (int l = 1; l <= levels; ++l) {
      count[l] = 1 + static_cast<int>(rng() % (levels > 4 ? 3 : 6));
      ss[l - 1] = src_ext + static_cast<int>(rng() % 16);
      ds[l - 1] = dst_ext + static_cast<int>(rng() % 16);
      src_ext = ss[l - 1] * count[l];
      dst_ext = ds[l - 1] * count[l];
    }
    const StridedShape s(levels, count, ss, ds);
    std::vector<long> all_src, all_dst;
    for_each_piece(s, [&](long so, long d, std::size_t) {
      all_src.push_back(so);
      all_dst.push_back(d);
    });
    ASSERT_EQ(all_src.size(), s.chunks());
    const uint64_t n = s.chunks(), first = rng() % n, take = 1 + rng() % (n - first);
    std::vector<long> got_src, got_dst;
    walk_side(s.levels, s.count, s.src_stride, first, take, [&](long o) { got_src.push_back(o); });
    walk_side(s.levels, s.count, s.dst_stride, first, take, [&](long o) { got_dst.push_back(o); });
    ASSERT_EQ(got_src.size(), take);
    for (uint64_t k = 0; k < take; ++k) {
      ASSERT_EQ(got_src[k], all_src[first + k]) << "trial " << trial << " piece " << first + k;
      ASSERT_EQ(got_dst[k], all_dst[first + k]) << "trial " << trial << " piece " << first + k;
    }
  }
}

// The pack and unpack (gather_side, scatter_side) copy exactly the rows the
// walk names, in its order, from any window, and return the packed end:
// 2-D and deeper shapes, rows of 1..64 bytes, gaps the copies must not touch.
TEST(AmStrided, GatherAndScatterCopyTheWalkedRows) {
  std::mt19937 rng(777);
  for (int trial = 0; trial < 400; ++trial) {
    const int levels = trial % 2 ? 1 : 1 + static_cast<int>(rng() % 4);
    int count[ARMCI_MAX_STRIDE_LEVEL + 1], st[ARMCI_MAX_STRIDE_LEVEL];
    count[0] = 1 + static_cast<int>(rng() % 64);
    int ext = count[0];
    for (int l = 1; l <= levels; ++l) {
      count[l] = 1 + static_cast<int>(rng() % (levels == 1 ? 40 : 5));
      st[l - 1] = ext + 1 + static_cast<int>(rng() % 16);  // a gap after every block
      ext = st[l - 1] * count[l];
    }
    const StridedShape s(levels, count, st, st);
    const uint64_t n = s.chunks(), first = rng() % n, take = 1 + rng() % (n - first);
    const auto row = static_cast<std::size_t>(s.count[0]);
    std::vector<char> side(static_cast<std::size_t>(ext));
    for (std::size_t i = 0; i < side.size(); ++i) side[i] = static_cast<char>(rng());
    std::vector<char> want;
    walk_side(s.levels, s.count, s.src_stride, first, take, [&](long o) {
      want.insert(want.end(), side.begin() + o, side.begin() + o + static_cast<long>(row));
    });
    std::vector<char> packed(take * row + 1, '#');
    char* end = gather_side(s.levels, s.count, s.src_stride, first, take, side.data(), packed.data(), row);
    ASSERT_EQ(end, packed.data() + take * row) << "trial " << trial;
    ASSERT_EQ(packed.back(), '#') << "trial " << trial;
    ASSERT_TRUE(std::equal(want.begin(), want.end(), packed.begin())) << "trial " << trial;

    // Scatter fresh values back: the walked rows take them, nothing else moves.
    std::vector<char> in(take * row);
    for (char& c : in) c = static_cast<char>(rng());
    std::vector<char> expect = side, got = side;
    const char* p = in.data();
    walk_side(s.levels, s.count, s.dst_stride, first, take, [&](long o) {
      std::memcpy(expect.data() + o, p, row);
      p += row;
    });
    const char* used = scatter_side(s.levels, s.count, s.dst_stride, first, take, got.data(), in.data(), row);
    ASSERT_EQ(used, in.data() + in.size()) << "trial " << trial;
    ASSERT_EQ(got, expect) << "trial " << trial << " levels " << levels << " first " << first << " take " << take;
  }
}

TEST(AmStrided, WellFormedShapesAreAccepted) {
  const StridedWire w = rows(kHeap, 256, 1000, 512, 10, 40);
  EXPECT_EQ(decode(message(AmOp::PutStrided, w)), nullptr);
  EXPECT_EQ(decode(message(AmOp::AccStrided, w, ARMCI_ACC_DBL)), nullptr);
  // The last piece of the shape ends at the heap's end.
  EXPECT_EQ(decode(message(AmOp::PutStrided, rows(kHeap + kHeapBytes - 999 * 512 - 256, 256, 1000, 512, 999, 1))),
            nullptr);
  // A whole slot of gathered rows.
  StridedWire g = rows(kHeap, 256, 4096, 512, 0, kSlot / 256);
  std::vector<char> get = message(AmOp::StagedGetStrided, g);
  EXPECT_EQ(decode(get), nullptr);
  // Slot-sized data is accepted only where the limit is a slot's.
  const std::vector<char> big = message(AmOp::PutStrided, rows(kHeap, 256, 4096, 512, 0, 1000));
  EXPECT_NE(decode(big), nullptr);
  EXPECT_EQ(decode(big, kSlot), nullptr);
}

TEST(AmStrided, ShapesTheAgentCannotTrustAreRefused) {
  const StridedWire ok = rows(kHeap, 256, 1000, 512, 0, 16);
  auto refused = [&](StridedWire w, const char* why, AmOp op = AmOp::PutStrided, int type = 0) {
    EXPECT_NE(decode(message(op, w, type)), nullptr) << why;
  };
  StridedWire w = ok;
  w.levels = 0;
  refused(w, "no levels");
  w.levels = kStrideLevels + 1;
  refused(w, "too many levels");
  w = ok;
  w.count[0] = 0;
  refused(w, "empty pieces");
  w = ok;
  w.count[1] = -3;
  refused(w, "negative block count");
  w = ok;
  w.pieces = 0;
  refused(w, "no pieces");
  w = ok;
  w.first = 990;
  refused(w, "pieces past the shape's last");
  w = ok;
  w.stride[0] = 9000;
  refused(w, "shape runs past the heap's end");
  w = ok;
  w.base = kHeap + 4096;
  w.stride[0] = -512;
  refused(w, "negative stride reaching below the heap");
  w = ok;
  w.stride[0] = INT64_MAX / 2;
  refused(w, "stride that overflows the address space");
  w = ok;
  w.levels = 3;
  w.count[1] = w.count[2] = w.count[3] = INT64_MAX / 4;
  w.stride[1] = w.stride[2] = 0;
  refused(w, "more pieces than 64 bits count");
  w = ok;
  w.count[0] = 12;
  refused(w, "accumulate rows not whole doubles", AmOp::AccStrided, ARMCI_ACC_DBL);
  refused(ok, "unknown accumulate type", AmOp::AccStrided, 999);
  // Payload must match the shape exactly.
  EXPECT_NE(decode(message(AmOp::PutStrided, ok, 0, 8)), nullptr) << "bytes beyond the payload";
  std::vector<char> m = message(AmOp::PutStrided, ok);
  m.resize(m.size() - 1);
  EXPECT_NE(decode(m), nullptr) << "truncated payload";
  m.resize(sizeof(AmHeader) + 8);
  EXPECT_NE(decode(m), nullptr) << "shorter than the shape";
  // Gets: no data, within a slot, into one of the sender's slots.
  EXPECT_NE(decode(message(AmOp::StagedGetStrided, ok, 0, 8)), nullptr) << "get carries data";
  EXPECT_NE(decode(message(AmOp::StagedGetStrided, rows(kHeap, 256, 4096, 512, 0, kSlot / 256 + 1))), nullptr)
      << "get larger than a slot";
  std::vector<char> g = message(AmOp::StagedGetStrided, ok);
  AmHeader h;
  std::memcpy(&h, g.data(), sizeof h);
  h.arg0 = 100;
  std::memcpy(g.data(), &h, sizeof h);
  EXPECT_NE(decode(g), nullptr) << "offset inside a slot";
  h.arg0 = kSlot * kStageSlots;
  std::memcpy(g.data(), &h, sizeof h);
  EXPECT_NE(decode(g), nullptr) << "slot past the sender's run";
}

// What the agent reads back from a staged write's header: the length the
// notice message would have carried.
TEST(AmStrided, StagedLengthOfEachKind) {
  const StridedWire w = rows(kHeap, 256, 1000, 512, 0, 16);
  std::vector<char> m = message(AmOp::PutStrided, w);
  AmHeader h;
  std::memcpy(&h, m.data(), sizeof h);
  EXPECT_EQ(staged_length(h), m.size());
  h.op = static_cast<uint16_t>(AmOp::Acc);
  h.npieces = 3;
  h.payload = 100;
  EXPECT_EQ(staged_length(h), sizeof h + 3 * sizeof(PieceWire) + 100);
}

TEST(AmStrided, CqDataNamesOriginTokenAndSlot) {
  for (uint32_t origin : {0u, 5u, 1u << 20, UINT32_MAX})
    for (uint32_t token : {0u, 63u, (1u << 24) - 1})
      for (uint32_t slot : {0u, 1u, 255u}) {
        const StageNotice n = stage_notice(stage_cq_data(origin, token, slot));
        EXPECT_EQ(n.origin, origin);
        EXPECT_EQ(n.token, token);
        EXPECT_EQ(n.slot, slot);
      }
}

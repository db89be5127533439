// Bad arguments, run with ARMCI_ERRORS=return: every call must refuse them
// with a non-zero return (void calls: without any effect) and a message on
// stderr naming the call, the bad value and the calling rank.  At the end
// the runtime must still work.  Collective calls get the same bad argument
// on every process, so nobody waits for a partner that already returned.
#include <gmock/gmock.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mp_check.hpp"

using ::testing::HasSubstr;
using mp::me;
using mp::nproc;
using mp::right;

namespace {

template <typename F>
std::string stderr_of(F&& f) {
  ::testing::internal::CaptureStderr();
  f();
  return ::testing::internal::GetCapturedStderr();
}

void expect_report(const std::string& err, const char* call, const std::string& what) {
  EXPECT_THAT(err, HasSubstr(call));
  EXPECT_THAT(err, HasSubstr(what));
  EXPECT_THAT(err, HasSubstr("rank " + std::to_string(me()) + "/"));
}

std::string ptr_text(const void* p) {
  char b[32];
  std::snprintf(b, sizeof b, "%p", p);
  return b;
}

}  // namespace

// rc-returning call: non-zero and a report.  Void call: a report.
#define EXPECT_REFUSED(expr, call, what)                           \
  do {                                                             \
    SCOPED_TRACE(#expr);                                           \
    long rc_ = 0;                                                  \
    const std::string err_ = stderr_of([&] { rc_ = (expr); });     \
    EXPECT_NE(rc_, 0);                                             \
    expect_report(err_, call, what);                               \
  } while (0)
#define EXPECT_REPORTED(stmt, call, what)                          \
  do {                                                             \
    SCOPED_TRACE(#stmt);                                           \
    const std::string err_ = stderr_of([&] { stmt; });             \
    expect_report(err_, call, what);                               \
  } while (0)

class Errors : public mp::MpTest {
 protected:
  void SetUp() override {
    mp::MpTest::SetUp();
    const char* e = std::getenv("ARMCI_ERRORS");
    ASSERT_TRUE(e && std::string(e) == "return") << "run with ARMCI_ERRORS=return";
  }
};

TEST_F(Errors, BadProcessIds) {
  mp::Shared<int> a(16);
  for (int i = 0; i < 16; ++i) a.mine()[i] = 0;  // ARMCI_Malloc does not clear
  ARMCI_Barrier();
  int buf[16] = {}, one = 1;
  for (int bad : {nproc(), -1, INT_MAX}) {
    const std::string what = "process id " + std::to_string(bad);
    EXPECT_REFUSED(ARMCI_Put(buf, a.mine(), 4, bad), "ARMCI_Put", what);
    EXPECT_REFUSED(ARMCI_Get(a.mine(), buf, 4, bad), "ARMCI_Get", what);
    EXPECT_REFUSED(ARMCI_Acc(ARMCI_ACC_INT, &one, buf, a.mine(), 4, bad), "ARMCI_Acc", what);
    EXPECT_REFUSED(ARMCI_NbPut(buf, a.mine(), 4, bad, nullptr), "ARMCI_NbPut", what);
    EXPECT_REFUSED(ARMCI_PutValueInt(3, a.mine(), bad), "ARMCI_PutValueInt", what);
    int cnt[1] = {4};
    EXPECT_REFUSED(ARMCI_PutS(buf, nullptr, a.mine(), nullptr, cnt, 0, bad), "ARMCI_PutS", what);
    EXPECT_REFUSED(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, buf, a.mine(), 1, bad), "ARMCI_Rmw", what);
    EXPECT_REFUSED(ARMCI_WaitProc(bad), "ARMCI_WaitProc", what);
    EXPECT_REFUSED(armci_notify(bad), "armci_notify", what);
    EXPECT_REPORTED(ARMCI_Fence(bad), "ARMCI_Fence", what);
    EXPECT_REPORTED(EXPECT_EQ(ARMCI_Same_node(bad), 0), "ARMCI_Same_node", what);
    EXPECT_REPORTED(armci_msg_snd(1, buf, 4, bad), "armci_msg_snd", what);
  }
  ARMCI_Barrier();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(a.mine()[i], 0) << "a refused call wrote element " << i;
}

TEST_F(Errors, NullPointers) {
  mp::Shared<int> a(16);
  int buf[16] = {};
  const int t = right();
  EXPECT_REFUSED(ARMCI_Put(nullptr, a.of(t), 8, t), "ARMCI_Put", "source is NULL");
  EXPECT_REFUSED(ARMCI_Get(a.of(t), nullptr, 8, t), "ARMCI_Get", "destination is NULL");
  EXPECT_REFUSED(ARMCI_Put(buf, nullptr, 8, t), "ARMCI_Put", "is not inside one live ARMCI_Malloc allocation");
  EXPECT_REFUSED(ARMCI_Acc(ARMCI_ACC_INT, nullptr, buf, a.of(t), 8, t), "ARMCI_Acc", "scale is NULL");
  EXPECT_REFUSED(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, nullptr, a.of(t), 1, t), "ARMCI_Rmw", "ploc is NULL");
  EXPECT_REFUSED(ARMCI_Wait(nullptr), "ARMCI_Wait", "handle pointer is NULL");
  EXPECT_REFUSED(ARMCI_Test(nullptr), "ARMCI_Test", "handle pointer is NULL");
  int ss[1] = {8};
  int cnt[2] = {4, 2};
  EXPECT_REFUSED(ARMCI_PutS(buf, nullptr, a.of(t), ss, cnt, 1, t), "ARMCI_PutS", "source stride array is NULL");
  EXPECT_REFUSED(ARMCI_GetS(a.of(t), ss, buf, nullptr, cnt, 1, t), "ARMCI_GetS", "destination stride array is NULL");
  EXPECT_REFUSED(ARMCI_PutS(buf, ss, a.of(t), ss, nullptr, 1, t), "ARMCI_PutS", "count array is NULL");
  EXPECT_REFUSED(ARMCI_PutV(nullptr, 2, t), "ARMCI_PutV", "descriptor array is NULL");
  armci_giov_t d = {nullptr, nullptr, 1, 4};
  EXPECT_REFUSED(ARMCI_GetV(&d, 1, t), "ARMCI_GetV", "NULL pointer array");
  EXPECT_REFUSED(ARMCI_Malloc(nullptr, 64), "ARMCI_Malloc", "ptr_arr is NULL");  // everyone: collective
  ARMCI_Barrier();
}

// Remote addresses must lie in ARMCI memory: a stack or malloc address,
// or a flag outside it, is refused before anything is touched.
TEST_F(Errors, RemoteNotArmciMemory) {
  mp::Shared<int> a(16);
  int stack_word[4] = {1, 2, 3, 4}, buf[4] = {};
  auto* heap_word = new int[4]();
  const int t = right(), one = 1;
  EXPECT_REFUSED(ARMCI_Put(buf, stack_word, 16, t), "ARMCI_Put", ptr_text(stack_word));
  EXPECT_REFUSED(ARMCI_Get(heap_word, buf, 16, t), "ARMCI_Get", ptr_text(heap_word));
  EXPECT_REFUSED(ARMCI_Acc(ARMCI_ACC_INT, const_cast<int*>(&one), buf, stack_word, 16, t), "ARMCI_Acc",
                 "is not inside one live ARMCI_Malloc allocation of process " + std::to_string(t));
  int cnt[2] = {4, 2}, ss[1] = {8};
  EXPECT_REFUSED(ARMCI_PutS(buf, ss, stack_word, ss, cnt, 1, t), "ARMCI_PutS", ptr_text(stack_word));
  void* lp[1] = {buf};
  void* rp[1] = {heap_word};
  armci_giov_t d = {lp, rp, 1, 8};
  EXPECT_REFUSED(ARMCI_PutV(&d, 1, t), "ARMCI_PutV", ptr_text(heap_word));
  EXPECT_REFUSED(ARMCI_Rmw(ARMCI_SWAP, buf, stack_word, 0, t), "ARMCI_Rmw", ptr_text(stack_word));
  EXPECT_REFUSED(ARMCI_Put_flag(buf, a.of(t), 4, stack_word, 1, t), "ARMCI_Put_flag", ptr_text(stack_word));
  EXPECT_EQ(stack_word[0], 1);
  EXPECT_EQ(heap_word[0], 0);
  delete[] heap_word;
  ARMCI_Barrier();
}

// The check is against the target's allocation, not the node heap: blocks of
// one ARMCI_Malloc sit side by side on a node, so each of these would land
// in a neighbour's memory (or a freed block) if accepted.
TEST_F(Errors, RemoteOutsideTheAllocation) {
  if (nproc() < 2) GTEST_SKIP() << "needs a second process";
  const int t = right();
  int buf[32] = {}, one = 1;
  mp::Shared<int> a(16);  // 64 bytes each
  for (int i = 0; i < 16; ++i) a.mine()[i] = 1000 + i;
  ARMCI_Barrier();
  int* end = a.of(t) + 16;
  const std::string pid = "process " + std::to_string(t);
  EXPECT_REFUSED(ARMCI_Put(buf, end, 8, t), "ARMCI_Put", ptr_text(end));
  EXPECT_REFUSED(ARMCI_Put(buf, end - 2, 16, t), "ARMCI_Put", "runs past the end");
  EXPECT_REFUSED(ARMCI_Get(end - 1, buf, 8, t), "ARMCI_Get", pid);
  EXPECT_REFUSED(ARMCI_Acc(ARMCI_ACC_INT, &one, buf, end - 3, 16, t), "ARMCI_Acc", pid);
  EXPECT_REFUSED(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, buf, end, 1, t), "ARMCI_Rmw", ptr_text(end));
  int cnt[2] = {16, 5}, st[1] = {16};  // 5 rows of 16 bytes, 16 apart: the last row is past the end
  EXPECT_REFUSED(ARMCI_PutS(buf, st, a.of(t), st, cnt, 1, t), "ARMCI_PutS", pid);
  void* lp[2] = {buf, buf + 4};
  void* rp[2] = {a.of(t), end};
  armci_giov_t d = {lp, rp, 2, 8};
  EXPECT_REFUSED(ARMCI_PutV(&d, 1, t), "ARMCI_PutV", ptr_text(end));
  // Another process's address is not t's memory, even on the same node.
  EXPECT_REFUSED(ARMCI_Put(buf, a.mine(), 8, t), "ARMCI_Put", pid);
  // A freed block, and one reused by a smaller allocation.
  std::vector<void*> big(static_cast<std::size_t>(nproc()));
  ASSERT_EQ(ARMCI_Malloc(big.data(), 1 << 16), 0);
  char* old_t = static_cast<char*>(big[static_cast<std::size_t>(t)]);
  ARMCI_Free(big[static_cast<std::size_t>(me())]);
  EXPECT_REFUSED(ARMCI_Put(buf, old_t, 8, t), "ARMCI_Put", ptr_text(old_t));
  std::vector<void*> small(static_cast<std::size_t>(nproc()));
  ASSERT_EQ(ARMCI_Malloc(small.data(), 64), 0);
  EXPECT_REFUSED(ARMCI_Put(buf, old_t + 4096, 8, t), "ARMCI_Put", ptr_text(old_t + 4096));
  EXPECT_EQ(ARMCI_Put(buf, small[static_cast<std::size_t>(t)], 64, t), 0);  // the live one is fine
  ARMCI_Free(small[static_cast<std::size_t>(me())]);
  // Memory of a group this process is not in (ARMCI-MPI refuses it too: the
  // allocation is the group's).
  if (nproc() >= 3) {
    int first[2] = {0, 1};
    ARMCI_Group g;
    ARMCI_Group_create(2, first, &g);
    void* gp[2] = {nullptr, nullptr};
    if (me() < 2) {
      EXPECT_EQ(ARMCI_Malloc_group(gp, 64, &g), 0);
    }
    armci_msg_bcast(gp, sizeof gp, 0);
    if (me() == 2) {
      EXPECT_REFUSED(ARMCI_Put(buf, gp[1], 8, 1), "ARMCI_Put", "process 1");
    }
    ARMCI_Barrier();
    if (me() < 2) {
      EXPECT_EQ(ARMCI_Free_group(gp[me()], &g), 0);
    }
    ARMCI_Group_free(&g);
  }
  // Nothing above touched anyone's memory.
  ARMCI_Barrier();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(a.mine()[i], 1000 + i) << "word " << i;
}

TEST_F(Errors, StrideLevelsAndCounts) {
  mp::Shared<int> a(64);
  for (int i = 0; i < 64; ++i) a.mine()[i] = 0;  // ARMCI_Malloc does not clear
  ARMCI_Barrier();
  int buf[64] = {}, one = 1;
  const int t = right();
  int st[9] = {8, 16, 32, 64, 128, 256, 512, 1024, 2048};
  int cnt[10] = {4, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  for (int lv : {9, -1}) {
    const std::string what = "stride_levels " + std::to_string(lv);
    EXPECT_REFUSED(ARMCI_PutS(buf, st, a.of(t), st, cnt, lv, t), "ARMCI_PutS", what);
    EXPECT_REFUSED(ARMCI_GetS(a.of(t), st, buf, st, cnt, lv, t), "ARMCI_GetS", what);
    EXPECT_REFUSED(ARMCI_AccS(ARMCI_ACC_INT, &one, buf, st, a.of(t), st, cnt, lv, t), "ARMCI_AccS", what);
    EXPECT_REFUSED(ARMCI_NbPutS(buf, st, a.of(t), st, cnt, lv, t, nullptr), "ARMCI_NbPutS", what);
    EXPECT_REPORTED(armci_read_strided(a.mine(), lv, st, cnt, reinterpret_cast<char*>(buf)), "armci_read_strided", what);
  }
  int neg[3] = {4, -2, 1};
  EXPECT_REFUSED(ARMCI_PutS(buf, st, a.of(t), st, neg, 2, t), "ARMCI_PutS", "count[1] = -2");
  int negst[2] = {8, -16}, rep[3] = {4, 2, 2};  // level 2 repeats: its stride is used
  EXPECT_REFUSED(ARMCI_GetS(a.of(t), st, buf, negst, rep, 2, t), "ARMCI_GetS", "dst_stride_arr[1] = -16");
  EXPECT_REFUSED(ARMCI_Put(buf, a.of(t), -5, t), "ARMCI_Put", "-5");
  EXPECT_REFUSED(ARMCI_NbGet(a.of(t), buf, -7, t, nullptr), "ARMCI_NbGet", "-7");
  void* lp[1] = {buf};
  void* rp[1] = {a.of(t)};
  armci_giov_t d = {lp, rp, 1, -4};
  EXPECT_REFUSED(ARMCI_PutV(&d, 1, t), "ARMCI_PutV", "bytes -4");
  EXPECT_REFUSED(ARMCI_GetV(&d, -1, t), "ARMCI_GetV", "descriptor count -1");
  EXPECT_REPORTED(armci_msg_snd(3, buf, -9, t), "armci_msg_snd", "-9");
  ARMCI_Barrier();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(a.mine()[i], 0) << "a refused call wrote element " << i;
}

// Descriptors whose arithmetic wraps or whose pieces overlap: refused before
// any byte moves (the extent used to wrap to a few bytes, pass the range
// check and crash the walk).
TEST_F(Errors, StridedOverflowAndOverlap) {
  mp::Shared<int> a(64);
  for (int i = 0; i < 64; ++i) a.mine()[i] = 0;
  ARMCI_Barrier();
  int buf[64] = {}, one = 1;
  const int t = right();
  // 8 levels of 2^31-1 blocks, 2^30 apart: (count-1) x stride summed wraps 2^64.
  int big_cnt[9] = {4, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX};
  int big_st[8] = {1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30};
  EXPECT_REFUSED(ARMCI_PutS(buf, big_st, a.of(t), big_st, big_cnt, 8, t), "ARMCI_PutS", "overflows");
  EXPECT_REFUSED(ARMCI_GetS(a.of(t), big_st, buf, big_st, big_cnt, 8, t), "ARMCI_GetS", "overflows");
  EXPECT_REFUSED(ARMCI_AccS(ARMCI_ACC_INT, &one, buf, big_st, a.of(t), big_st, big_cnt, 8, t), "ARMCI_AccS",
                 "overflows");
  // Extent that fits 64 bits but the stride still wraps on one side only.
  int cnt2[3] = {8, 3, INT_MAX};
  int ok_st[2] = {8, 24}, huge_st[2] = {8, INT_MAX};
  EXPECT_REFUSED(ARMCI_PutS(buf, ok_st, a.of(t), huge_st, cnt2, 2, t), "ARMCI_PutS",
                 "is not inside one live ARMCI_Malloc allocation");
  // A stride below the block it repeats: rows of 16 bytes, 8 apart.
  int cnt[3] = {16, 4, 2}, small[2] = {8, 64}, fine[2] = {16, 64};
  EXPECT_REFUSED(ARMCI_PutS(buf, fine, a.of(t), small, cnt, 1, t), "ARMCI_PutS",
                 "dst_stride_arr[0] = 8 is smaller than the 16-byte block");
  EXPECT_REFUSED(ARMCI_GetS(a.of(t), fine, buf, small, cnt, 1, t), "ARMCI_GetS",
                 "dst_stride_arr[0] = 8 is smaller than the 16-byte block");
  // Overlapping source pieces only read twice: allowed.
  EXPECT_EQ(ARMCI_GetS(a.of(t), small, buf, fine, cnt, 1, t), 0);
  // Level 2 must step over a whole level-1 block (16 + 3 x 16 = 64 bytes).
  int lv2[2] = {16, 48};
  EXPECT_REFUSED(ARMCI_NbPutS(buf, fine, a.of(t), lv2, cnt, 2, t, nullptr), "ARMCI_NbPutS",
                 "dst_stride_arr[1] = 48 is smaller than the 64-byte block");
  // A level that does not repeat may carry any stride, even a negative one
  // (GA passes such; its int strides of huge blocks can wrap).
  int single[3] = {16, 1, 2}, any[2] = {-8, 64};
  EXPECT_EQ(ARMCI_PutS(buf, any, a.of(t), any, single, 2, t), 0);
  ARMCI_Barrier();
  for (int i = 0; i < 64; ++i) a.mine()[i] = 0;
  ARMCI_Barrier();
  // A transposed layout: levels need not grow in stride, only not overlap.
  // A 3x4 int matrix (rows of 4 ints) lands as its 4x3 transpose.
  int m[12];
  for (int i = 0; i < 12; ++i) m[i] = 100 + i;
  int tcnt[3] = {4, 4, 3}, tsrc[2] = {4, 16}, tdst[2] = {12, 4};
  EXPECT_EQ(ARMCI_PutS(m, tsrc, a.of(t) + 32, tdst, tcnt, 2, t), 0);
  // Accumulates into overlapping pieces are defined: each adds.
  int acnt[2] = {4, 3}, asrc[1] = {4}, adst[1] = {0};
  int three[3] = {1, 2, 4};
  EXPECT_EQ(ARMCI_AccS(ARMCI_ACC_INT, &one, three, asrc, a.of(t) + 48, adst, acnt, 1, t), 0);
  ARMCI_Barrier();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(a.mine()[32 + c * 3 + r], 100 + r * 4 + c) << "transpose element (" << r << "," << c << ")";
  EXPECT_EQ(a.mine()[48], 7) << "three overlapping accumulates";
  ARMCI_Barrier();
  for (int i = 0; i < 64; ++i) a.mine()[i] = 0;
  ARMCI_Barrier();
  // Vector pieces that partly overlap in the destination.
  void* lp[2] = {buf, buf + 8};
  void* rp[2] = {a.of(t), a.of(t) + 1};
  armci_giov_t d = {lp, rp, 2, 8};
  EXPECT_REFUSED(ARMCI_PutV(&d, 1, t), "ARMCI_PutV", "overlap");
  void* gl[2] = {buf + 1, buf};
  void* gr[2] = {a.of(t), a.of(t) + 8};
  armci_giov_t g = {gr, gl, 2, 8};
  EXPECT_REFUSED(ARMCI_GetV(&g, 1, t), "ARMCI_GetV", "overlap");
  // ... across two descriptors of one call too.
  void* l1[1] = {buf};
  void* r1[1] = {a.of(t) + 2};
  void* l2[1] = {buf + 4};
  void* r2[1] = {a.of(t) + 3};
  armci_giov_t two[2] = {{l1, r1, 1, 8}, {l2, r2, 1, 8}};
  EXPECT_REFUSED(ARMCI_NbPutV(two, 2, t, nullptr), "ARMCI_NbPutV", "overlap");
  // Accumulates into the same word twice are well defined: allowed.
  void* al[2] = {buf, buf + 8};
  void* ar[2] = {a.of(t) + 4, a.of(t) + 4};
  armci_giov_t acc = {al, ar, 2, 4};
  int src[16] = {};
  src[0] = 2;
  src[8] = 3;
  al[0] = src;
  al[1] = src + 8;
  EXPECT_EQ(ARMCI_AccV(ARMCI_ACC_INT, &one, &acc, 1, t), 0);
  // The very same destination twice (GA's scatter with duplicate subscripts):
  // allowed; with different data a warning says the winner is undefined.
  int same[2] = {7, 7};
  void* sl[2] = {same, same + 1};
  void* sr[2] = {a.of(t) + 6, a.of(t) + 6};
  armci_giov_t dup = {sl, sr, 2, 4};
  EXPECT_EQ(stderr_of([&] { EXPECT_EQ(ARMCI_PutV(&dup, 1, t), 0); }), "");
  int differ[2] = {7, 9};
  sl[0] = differ;
  sl[1] = differ + 1;
  const std::string warn = stderr_of([&] { EXPECT_EQ(ARMCI_PutV(&dup, 1, t), 0); });
  EXPECT_THAT(warn, HasSubstr("which lands last is not defined"));
  EXPECT_EQ(stderr_of([&] { EXPECT_EQ(ARMCI_PutV(&dup, 1, t), 0); }), "") << "reported once only";
  ARMCI_Barrier();
  EXPECT_EQ(a.mine()[4], 5) << "both accumulates landed";
  EXPECT_TRUE(a.mine()[6] == 7 || a.mine()[6] == 9) << a.mine()[6];
  for (int i : {0, 1, 2, 3, 5}) EXPECT_EQ(a.mine()[i], 0) << "a refused call wrote element " << i;
  ARMCI_Barrier();
}

TEST_F(Errors, AccumulateTypeAndSize) {
  mp::Shared<double> a(8);
  double buf[8] = {}, s = 1;
  const int t = right();
  EXPECT_REFUSED(ARMCI_Acc(99, &s, buf, a.of(t), 8, t), "ARMCI_Acc", "accumulate type 99");
  EXPECT_REFUSED(ARMCI_NbAcc(ARMCI_ACC_OFF, &s, buf, a.of(t), 8, t, nullptr), "ARMCI_NbAcc", "accumulate type 36");
  EXPECT_REFUSED(ARMCI_Acc(ARMCI_ACC_DBL, &s, buf, a.of(t), 12, t), "ARMCI_Acc", "12 bytes");
  EXPECT_REFUSED(ARMCI_Acc(ARMCI_ACC_DCP, &s, buf, a.of(t), 24, t), "ARMCI_Acc", "ARMCI_ACC_DCP");
  int cnt[2] = {10, 2}, st[1] = {16};
  EXPECT_REFUSED(ARMCI_AccS(ARMCI_ACC_INT, &s, buf, st, a.of(t), st, cnt, 1, t), "ARMCI_AccS", "10 bytes");
  EXPECT_REFUSED(ARMCI_AccS(7, &s, buf, st, a.of(t), st, cnt, 1, t), "ARMCI_AccS", "accumulate type 7");
  void* lp[1] = {buf};
  void* rp[1] = {a.of(t)};
  armci_giov_t d = {lp, rp, 1, 6};
  EXPECT_REFUSED(ARMCI_AccV(ARMCI_ACC_INT, &s, &d, 1, t), "ARMCI_AccV", "6 bytes");
  ARMCI_Barrier();
}

TEST_F(Errors, RmwOpAndAlignment) {
  mp::Shared<long> a(2);
  a.mine()[0] = a.mine()[1] = 5;
  ARMCI_Barrier();
  long v = 1;
  const int t = right();
  EXPECT_REFUSED(ARMCI_Rmw(7, &v, a.of(t), 1, t), "ARMCI_Rmw", "operation 7");
  EXPECT_REFUSED(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &v, reinterpret_cast<char*>(a.of(t)) + 2, 1, t), "ARMCI_Rmw",
                 "not aligned");
  ARMCI_Barrier();
  EXPECT_EQ(a.mine()[0], 5);
  EXPECT_EQ(a.mine()[1], 5);
}

TEST_F(Errors, BadGroups) {
  ARMCI_Group bad = 12345, world;
  ARMCI_Group_get_world(&world);
  const std::string what = "group handle 12345";
  int rank = -77, size = -77;
  EXPECT_REFUSED(ARMCI_Group_rank(&bad, &rank), "ARMCI_Group_rank", what);
  EXPECT_EQ(rank, -77);
  EXPECT_REPORTED(ARMCI_Group_size(&bad, &size), "ARMCI_Group_size", what);
  EXPECT_EQ(size, -77);
  EXPECT_REFUSED(ARMCI_Absolute_id(&bad, 0), "ARMCI_Absolute_id", what);
  EXPECT_REFUSED(ARMCI_Absolute_id(&world, nproc()), "ARMCI_Absolute_id", "rank " + std::to_string(nproc()));
  std::vector<void*> p(static_cast<std::size_t>(nproc()));
  EXPECT_REFUSED(ARMCI_Malloc_group(p.data(), 64, &bad), "ARMCI_Malloc_group", what);
  EXPECT_REPORTED(armci_msg_group_barrier(&bad), "armci_msg_group_barrier", what);
  int x = 5;
  EXPECT_REPORTED(armci_msg_group_gop_scope(SCOPE_ALL, &x, 1, mp::op("+"), ARMCI_INT, &bad),
                  "armci_msg_group_gop_scope", what);
  EXPECT_EQ(x, 5);
  EXPECT_REPORTED(ARMCI_Group_set_default(&bad), "ARMCI_Group_set_default", what);
  ARMCI_Group d;
  ARMCI_Group_get_default(&d);
  EXPECT_EQ(d, world);
  EXPECT_REPORTED(ARMCI_Group_free(&world), "ARMCI_Group_free", "world");
  EXPECT_REPORTED(ARMCI_GroupFence(&bad), "ARMCI_GroupFence", what);
  EXPECT_REPORTED(EXPECT_EQ(ARMCI_Uses_shm_grp(&bad), 0), "ARMCI_Uses_shm_grp", what);
  // A freed handle is as bad as a made-up one.
  int all = me();
  ARMCI_Group g;
  ARMCI_Group_create(1, &all, &g);
  ARMCI_Group_free(&g);
  EXPECT_REFUSED(ARMCI_Group_rank(&g, &rank), "ARMCI_Group_rank", "group handle " + std::to_string(g));
  EXPECT_REPORTED(ARMCI_Group_free(&g), "ARMCI_Group_free", "group handle " + std::to_string(g));
  EXPECT_REPORTED(ARMCI_Group_free(&bad), "ARMCI_Group_free", what);
  int dup[2] = {0, 0};
  EXPECT_REPORTED(ARMCI_Group_create(2, dup, &g), "ARMCI_Group_create", "appears twice");
  int out_of_range = nproc();
  EXPECT_REPORTED(ARMCI_Group_create(1, &out_of_range, &g), "ARMCI_Group_create", std::to_string(nproc()));
  int y = 1;
  armci_msg_igop(&y, 1, mp::op("+"));  // the world still reduces over everyone
  EXPECT_EQ(y, nproc());
}

TEST_F(Errors, BadReductionsAndBroadcasts) {
  int xi[2] = {3, 4};
  double xd[2] = {1.5, 2.5};
  EXPECT_REPORTED(armci_msg_gop_scope(SCOPE_ALL, xi, 2, mp::op("foo"), ARMCI_INT), "armci_msg_gop_scope", "\"foo\"");
  EXPECT_EQ(xi[0], 3);
  EXPECT_EQ(xi[1], 4);
  EXPECT_REPORTED(armci_msg_gop_scope(SCOPE_ALL, xi, 2, mp::op("+"), 12345), "armci_msg_gop_scope", "type 12345");
  EXPECT_REPORTED(armci_msg_gop_scope(SCOPE_ALL, xd, 2, mp::op("&"), ARMCI_DOUBLE), "armci_msg_gop_scope",
                  "integer type");
  EXPECT_REPORTED(armci_msg_gop_scope(999, xi, 2, mp::op("+"), ARMCI_INT), "armci_msg_gop_scope", "scope 999");
  EXPECT_REPORTED(armci_msg_gop_scope(SCOPE_NODE, xi, -3, mp::op("+"), ARMCI_INT), "armci_msg_gop_scope", "-3");
  EXPECT_EQ(xi[0], 3);
  EXPECT_EQ(xd[0], 1.5);
  EXPECT_REPORTED(armci_msg_sel_scope(SCOPE_ALL, xd, 16, mp::op("sum"), ARMCI_DOUBLE, 1), "armci_msg_sel_scope",
                  "\"sum\"");
  EXPECT_REPORTED(armci_msg_bcast(xi, 8, nproc()), "armci_msg_bcast", "root " + std::to_string(nproc()));
  EXPECT_REPORTED(armci_msg_bcast(xi, 8, -1), "armci_msg_bcast", "root -1");
  EXPECT_EQ(xi[1], 4);
  EXPECT_REPORTED(armci_msg_rcv(1, xi, 8, nullptr, -4), "armci_msg_rcv", "process id -4");
}

TEST_F(Errors, MutexesMemoryDomains) {
  EXPECT_REPORTED(ARMCI_Lock(0, right()), "ARMCI_Lock", "no mutexes exist");
  EXPECT_REFUSED(ARMCI_Destroy_mutexes(), "ARMCI_Destroy_mutexes", "no mutexes exist");
  EXPECT_REFUSED(ARMCI_Create_mutexes(-1), "ARMCI_Create_mutexes", "-1");
  EXPECT_EQ(ARMCI_Create_mutexes(2), 0);
  EXPECT_REFUSED(ARMCI_Create_mutexes(2), "ARMCI_Create_mutexes", "already exist");
  EXPECT_REPORTED(ARMCI_Lock(5, right()), "ARMCI_Lock", "mutex 5");
  EXPECT_REPORTED(ARMCI_Unlock(2, right()), "ARMCI_Unlock", "mutex 2");
  EXPECT_REPORTED(ARMCI_Lock(0, nproc()), "ARMCI_Lock", std::to_string(nproc()));
  ARMCI_Lock(1, right());  // the refused calls left the mutexes usable
  ARMCI_Unlock(1, right());
  ARMCI_Barrier();
  EXPECT_EQ(ARMCI_Destroy_mutexes(), 0);
  int local = 0;
  EXPECT_REFUSED(ARMCI_Free_local(&local), "ARMCI_Free_local", ptr_text(&local));
  EXPECT_REFUSED(ARMCI_Free(&local), "ARMCI_Free", "does not start an allocation");  // collective
  std::vector<void*> p(static_cast<std::size_t>(nproc()));
  EXPECT_REFUSED(ARMCI_Malloc(p.data(), -1), "ARMCI_Malloc", "-1");
  EXPECT_REFUSED(armci_domain_nprocs(1, 0), "armci_domain_nprocs", "domain 1");
  EXPECT_REFUSED(armci_domain_nprocs(ARMCI_DOMAIN_SMP, 99), "armci_domain_nprocs", "99");
  EXPECT_REFUSED(armci_domain_nprocs(ARMCI_DOMAIN_SMP, -2), "armci_domain_nprocs", "-2");
  EXPECT_REFUSED(armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, 0, 1000), "armci_domain_glob_proc_id", "1000");
  EXPECT_REFUSED(armci_domain_id(ARMCI_DOMAIN_SMP, -3), "armci_domain_id", "-3");
  ARMCI_Barrier();
}

// Calls that are thin wrappers of others must still name themselves: the
// user called armci_msg_igop, not armci_msg_gop_scope.
TEST_F(Errors, WrappersNameTheCallMade) {
  ARMCI_Group bad = 12345;
  int xi[2] = {3, 4}, local = 0;
  long xl = 1;
  double xd[2] = {1.5, 2.5};
  EXPECT_REPORTED(armci_msg_igop(xi, 2, mp::op("foo")), "armci_msg_igop", "\"foo\"");
  EXPECT_REPORTED(armci_msg_lgop(&xl, 1, mp::op("foo")), "armci_msg_lgop", "\"foo\"");
  EXPECT_REPORTED(armci_msg_dgop(xd, 2, mp::op("&")), "armci_msg_dgop", "integer type");
  EXPECT_REPORTED(armci_msg_clus_igop(xi, 2, mp::op("foo")), "armci_msg_clus_igop", "\"foo\"");
  EXPECT_REPORTED(armci_msg_group_igop(xi, 1, mp::op("+"), &bad), "armci_msg_group_igop", "group handle 12345");
  EXPECT_REPORTED(armci_msg_reduce(xi, 2, mp::op("foo"), ARMCI_INT), "armci_msg_reduce", "\"foo\"");
  EXPECT_REPORTED(armci_msg_brdcst(xi, 8, -1), "armci_msg_brdcst", "root -1");
  EXPECT_REPORTED(armci_msg_bcast_scope(SCOPE_ALL, xi, 8, -1), "armci_msg_bcast_scope", "root -1");
  EXPECT_EQ(xi[0], 3);
  EXPECT_EQ(xd[0], 1.5);
  EXPECT_REPORTED(EXPECT_EQ(armci_sameclusnode(-2), 0), "armci_sameclusnode", "process id -2");
  int cnt[1] = {4};
  EXPECT_REFUSED(ARMCI_PutS_flag_dir(xi, nullptr, xi, nullptr, cnt, 9, xi, 1, 0), "ARMCI_PutS_flag_dir",
                 "stride_levels 9");
  EXPECT_REFUSED(ARMCI_Malloc_memdev(nullptr, 64, "host"), "ARMCI_Malloc_memdev", "ptr_arr is NULL");
  EXPECT_REFUSED(ARMCI_Free_memdev(&local), "ARMCI_Free_memdev", "does not start an allocation");  // collective
}

// After all the refusals, ordinary work still succeeds.
TEST_F(Errors, RuntimeStillWorks) {
  mp::Shared<long> a(64);
  std::vector<long> src(64), back(64, 0);
  for (int i = 0; i < 64; ++i) src[static_cast<std::size_t>(i)] = me() * 100L + i;
  EXPECT_EQ(ARMCI_Put(src.data(), a.of(right()), 512, right()), 0);
  EXPECT_EQ(ARMCI_Get(a.of(right()), back.data(), 512, right()), 0);
  EXPECT_TRUE(mp::same(back, src, "put/get after errors"));
  int x = 1;
  armci_msg_igop(&x, 1, mp::op("+"));
  EXPECT_EQ(x, nproc());
}

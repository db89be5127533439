// message.h: ranks, point-to-point messages (sizes from 0 to beyond 64 KiB,
// tags, any-source), broadcasts, barriers, every reduction op on every type
// it applies to and in every scope (expected values folded over the ranks
// in the scope, found with armci_domain_*), reduce, sel, bintree,
// exchange_address and the timer.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mp_check.hpp"

using mp::left;
using mp::me;
using mp::nproc;
using mp::right;

namespace {

// Ranks taking part in a scope: all, my node, or the first rank of each node.
std::vector<int> scope_ranks(int scope) {
  std::vector<int> v;
  if (scope == SCOPE_ALL) {
    for (int r = 0; r < nproc(); ++r) v.push_back(r);
  } else if (scope == SCOPE_NODE) {
    const int d = armci_domain_my_id(ARMCI_DOMAIN_SMP);
    for (int i = 0; i < armci_domain_nprocs(ARMCI_DOMAIN_SMP, d); ++i)
      v.push_back(armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, d, i));
  } else {
    for (int d = 0; d < armci_domain_count(ARMCI_DOMAIN_SMP); ++d)
      v.push_back(armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, d, 0));
  }
  return v;
}
bool in(const std::vector<int>& v, int r) { return std::find(v.begin(), v.end(), r) != v.end(); }

// Rank r's element i for op `op`: small values chosen so every op is exact
// and its result depends on several ranks.
template <typename T>
T value(const std::string& op, int r, int i) {
  const int P = nproc();
  if (op == "+") return static_cast<T>((r * 3 + i) % 7 - 3);
  if (op == "*") return static_cast<T>((r + i) % 3 == 0 ? -1 : (r + i) % 3 == 1 ? 1 : 2);
  if (op == "&&" || op == "land") return static_cast<T>((r + i) % (P + 1) == 0 ? 0 : 1 << ((r + i) % 5));
  if (op == "||" || op == "lor") return static_cast<T>(r == i % (P + 1) ? 2 << (r % 4) : 0);
  if (op == "&" || op == "band") return static_cast<T>(0x7fff & ~(1 << ((r + i) % 9)));
  if (op == "or" || op == "|" || op == "bor") return static_cast<T>((1 << ((r + 2 * i) % 12)) | i);
  return static_cast<T>((r * 7 + i * 3) % 11 - 5);  // max, min, absmax, absmin
}

// The reduction of the ranks' values, computed here independently.
template <typename T>
T fold(const std::string& op, const std::vector<int>& ranks, int i) {
  auto v = [&](int r) { return value<T>(op, r, i); };
  T acc = v(ranks[0]);
  if (op == "absmax" || op == "absmin") acc = static_cast<T>(std::abs(static_cast<double>(acc)));
  if (op == "&&" || op == "land" || op == "||" || op == "lor") acc = acc != T(0) ? T(1) : T(0);
  for (std::size_t k = 1; k < ranks.size(); ++k) {
    const T x = v(ranks[k]);
    const T ax = static_cast<T>(std::abs(static_cast<double>(x)));
    if (op == "+") acc = static_cast<T>(acc + x);
    else if (op == "*") acc = static_cast<T>(acc * x);
    else if (op == "max") acc = std::max(acc, x);
    else if (op == "min") acc = std::min(acc, x);
    else if (op == "absmax") acc = std::max(acc, ax);
    else if (op == "absmin") acc = std::min(acc, ax);
    else if (op == "&&" || op == "land") acc = (acc != T(0) && x != T(0)) ? T(1) : T(0);
    else if (op == "||" || op == "lor") acc = (acc != T(0) || x != T(0)) ? T(1) : T(0);
    else if constexpr (std::is_integral_v<T>) {
      if (op == "&" || op == "band") acc = static_cast<T>(acc & x);
      else acc = static_cast<T>(acc | x);  // or, |, bor
    }
  }
  return acc;
}

constexpr int kElems = 9;

// One op on one type in one scope, through `call` (a typed *gop wrapper or
// gop_scope); non-members of SCOPE_MASTERS must be left unchanged.
template <typename T, typename Call>
void check_op(const std::string& op, int scope, const char* how, Call call) {
  std::vector<T> x(kElems);
  for (int i = 0; i < kElems; ++i) x[static_cast<std::size_t>(i)] = value<T>(op, me(), i);
  const auto orig = x;
  call(x.data(), kElems, mp::op(op.c_str()));
  const auto ranks = scope_ranks(scope);
  std::vector<T> want = orig;
  if (in(ranks, me()))
    for (int i = 0; i < kElems; ++i) want[static_cast<std::size_t>(i)] = fold<T>(op, ranks, i);
  // Logical ops: only the truth value is defined (a one-member reduction,
  // like MPI's, may return its input unnormalised); inputs such as 2 and 4
  // still tell logical from bitwise.
  if (op == "&&" || op == "land" || op == "||" || op == "lor")
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = x[i] != T(0) ? T(1) : T(0);
      want[i] = want[i] != T(0) ? T(1) : T(0);
    }
  EXPECT_TRUE(mp::same(x, want, how)) << "op \"" << op << "\" scope " << scope;
}

const char* const kArith[] = {"+", "*", "max", "min", "absmax", "absmin"};
const char* const kIntOnly[] = {"or", "&&", "||", "&", "|", "land", "lor", "band", "bor"};

template <typename T>
void all_ops(int type, void (*typed)(T*, int, char*), void (*clus)(T*, int, char*), const char* name) {
  SCOPED_TRACE(name);
  std::vector<std::string> ops(std::begin(kArith), std::end(kArith));
  if constexpr (std::is_integral_v<T>) ops.insert(ops.end(), std::begin(kIntOnly), std::end(kIntOnly));
  for (const auto& op : ops) {
    check_op<T>(op, SCOPE_ALL, "typed gop", typed);
    check_op<T>(op, SCOPE_NODE, "clus gop", clus);
    for (int scope : {SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS})
      check_op<T>(op, scope, "gop_scope", [&](T* x, int n, char* o) { armci_msg_gop_scope(scope, x, n, o, type); });
  }
}

}  // namespace

class Message : public mp::MpTest {};

TEST_F(Message, Ranks) {
  EXPECT_EQ(armci_msg_nproc(), nproc());
  const auto all = mp::allgather(static_cast<long>(armci_msg_me()));
  for (int r = 0; r < nproc(); ++r) EXPECT_EQ(all[static_cast<std::size_t>(r)], r);
  const auto np = mp::allgather(static_cast<long>(armci_msg_nproc()));
  for (int r = 0; r < nproc(); ++r) EXPECT_EQ(np[static_cast<std::size_t>(r)], nproc());
}

TEST_F(Message, SendReceiveSizes) {
  const int sizes[] = {0, 1, 100, 4096, 65536 + 17, 300000};
  for (int k = 0; k < 6; ++k) {
    const int n = sizes[k];
    std::vector<unsigned char> out(static_cast<std::size_t>(n)), in(static_cast<std::size_t>(n) + 100, 0xCD);
    for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = static_cast<unsigned char>(me() * 13 + i * 7 + k);
    int len = -1;
    // Even ranks send first, odd ranks receive first: no cycle of senders.
    if (me() % 2 == 0) armci_msg_snd(10 + k, out.data(), n, right());
    armci_msg_rcv(10 + k, in.data(), n + 100, &len, left());
    if (me() % 2 == 1) armci_msg_snd(10 + k, out.data(), n, right());
    EXPECT_EQ(len, n);
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += in[static_cast<std::size_t>(i)] != static_cast<unsigned char>(left() * 13 + i * 7 + k);
    EXPECT_EQ(bad, 0) << n << " bytes from " << left();
    EXPECT_EQ(in[static_cast<std::size_t>(n)], 0xCD) << "wrote past the message";
  }
}

// Messages are matched by tag: received in the opposite order of sending.
TEST_F(Message, TagsMatch) {
  long a = 1000L + me(), b = 2000L + me(), ga = 0, gb = 0;
  int la = 0, lb = 0;
  armci_msg_snd(501, &a, 8, right());
  armci_msg_snd(502, &b, 8, right());
  armci_msg_rcv(502, &gb, 8, &lb, left());
  armci_msg_rcv(501, &ga, 8, &la, left());
  EXPECT_EQ(ga, 1000L + left());
  EXPECT_EQ(gb, 2000L + left());
  EXPECT_EQ(la, 8);
  EXPECT_EQ(lb, 8);
}

TEST_F(Message, ReceiveAny) {
  const int P = nproc();
  if (me() != 0) {
    std::vector<int> m(static_cast<std::size_t>(me() + 1), me());
    armci_msg_snd(99, m.data(), 4 * (me() + 1), 0);
  } else {
    std::vector<int> seen(static_cast<std::size_t>(P), 0);
    for (int k = 1; k < P; ++k) {
      std::vector<int> m(static_cast<std::size_t>(P + 1), -1);
      int len = -1;
      const int src = armci_msg_rcvany(99, m.data(), 4 * (P + 1), &len);
      EXPECT_TRUE(src > 0 && src < P) << "source " << src;
      if (src <= 0 || src >= P) continue;
      ++seen[static_cast<std::size_t>(src)];
      EXPECT_EQ(len, 4 * (src + 1));
      for (int i = 0; i <= src; ++i) EXPECT_EQ(m[static_cast<std::size_t>(i)], src);
    }
    for (int r = 1; r < P; ++r) EXPECT_EQ(seen[static_cast<std::size_t>(r)], 1) << "messages from " << r;
  }
}

TEST_F(Message, Broadcasts) {
  const int P = nproc(), n = 70000;
  auto fill = [&](std::vector<unsigned char>& b, int root, int salt) {
    for (int i = 0; i < n; ++i) b[static_cast<std::size_t>(i)] = static_cast<unsigned char>(root * 29 + i * 3 + salt);
  };
  for (int root = 0; root < P; ++root) {
    for (int how = 0; how < 3; ++how) {  // bcast, brdcst, bcast_scope(SCOPE_ALL)
      std::vector<unsigned char> b(static_cast<std::size_t>(n), 0), want(static_cast<std::size_t>(n));
      fill(want, root, how);
      if (me() == root) b = want;
      if (how == 0) armci_msg_bcast(b.data(), n, root);
      else if (how == 1) armci_msg_brdcst(b.data(), n, root);
      else armci_msg_bcast_scope(SCOPE_ALL, b.data(), n, root);
      EXPECT_TRUE(mp::same(b, want, "broadcast")) << "root " << root << " call " << how;
    }
  }
  // Node scope (root: my node's first rank), masters, and clus_brdcst.
  const auto node = scope_ranks(SCOPE_NODE), masters = scope_ranks(SCOPE_MASTERS);
  long v = me() == node[0] ? 5000L + node[0] : -1L;
  armci_msg_bcast_scope(SCOPE_NODE, &v, 8, node[0]);
  EXPECT_EQ(v, 5000L + node[0]);
  long m = me() == 0 ? 6000L : -1L - me();
  armci_msg_bcast_scope(SCOPE_MASTERS, &m, 8, 0);
  EXPECT_EQ(m, in(masters, me()) ? 6000L : -1L - me());
  long c = me() == node[0] ? 7000L + node[0] : -1L;
  armci_msg_clus_brdcst(&c, 8);
  EXPECT_EQ(c, 7000L + node[0]);
}

TEST_F(Message, Barrier) {
  mp::Shared<long> a(1);
  *a.mine() = -1;
  armci_msg_barrier();
  if (me() == 0) usleep(150000);
  *a.mine() = 100L + me();  // plain store before the barrier
  const double t0 = armci_timer();
  armci_msg_barrier();
  const double waited = armci_timer() - t0;
  if (me() != 0) {
    EXPECT_GT(waited, 0.1) << "left the barrier before rank 0 arrived";
  }
  for (int p = 0; p < nproc(); ++p) EXPECT_EQ(ARMCI_GetValueLong(a.of(p), p), 100L + p);
}

// Collectives cross nodes only between one leader per node (as messages
// straight to the leader's endpoint, or as signals through the mailbox with
// ARMCI_COLL_DIRECT=0, whose slot credits ride back in the leaders' own
// messages): per barrier at most
// L*ceil(log2 L) messages between L nodes (dissemination) and per allreduce
// P*log2(P) + 2(L-P) with P the largest power of two <= L (recursive
// doubling, the L-P extra leaders folded in and answered), each one active
// message, plus at most one credit for every two.  All ranks talking across
// nodes (the flat algorithm, or one acknowledgement per message) would
// exceed this.  In a job that runs MPI (ARMCI_TEST_MPI=1) the steps between
// nodes are MPI's (ARMCI_COLL_MPI): then none of ours, and one MPI step per
// collective on each leader.
TEST_F(Message, CollectivesCostOneSignalPerNodeMessage) {
  const long L = armci_domain_count(ARMCI_DOMAIN_SMP);
  auto signals = [] {
    return std::max(0L, ARMCI_Ofi_stat("am_signal")) + std::max(0L, ARMCI_Ofi_stat("peer_messages"));
  };
  const int reps = 200;
  armci_msg_barrier();
  const long mpi_before = ARMCI_Ofi_stat("coll_mpi_steps");
  const long before = signals();
  for (int i = 0; i < reps; ++i) armci_msg_barrier();
  const long after_barriers = signals();
  for (int i = 0; i < reps; ++i) {
    double x = me();
    armci_msg_dgop(&x, 1, const_cast<char*>("+"));
    ASSERT_EQ(x, nproc() * (nproc() - 1) / 2.0);
  }
  const long after_gops = signals();
  long counts[3] = {after_barriers - before, after_gops - after_barriers,
                    ARMCI_Ofi_stat("coll_mpi_steps") - mpi_before};
  armci_msg_lgop(counts, 3, const_cast<char*>("+"));  // after the measurement
  const char* forced = std::getenv("ARMCI_COLL_MPI");
  const char* with_mpi = std::getenv("ARMCI_TEST_MPI");
  if (L > 1 && forced && with_mpi && std::string(forced) == "1" && std::string(with_mpi) == "1") {
    EXPECT_GT(counts[2], 0) << "ARMCI_COLL_MPI=1 in an MPI job, yet no collective step went through MPI";
  }
  if (counts[2] > 0) {
    EXPECT_EQ(counts[0] + counts[1], 0) << "collectives on MPI's path also sent messages of ours";
    EXPECT_EQ(counts[2], 2 * reps * L) << "MPI steps for " << reps << " barriers and allreduces on " << L << " leaders";
    return;
  }
  long log2L = 0;
  while ((1L << log2L) < L) ++log2L;
  long p2 = 1, log2p2 = 0;
  while (p2 * 2 <= L) p2 *= 2, ++log2p2;
  const long per_barrier = L * log2L, per_gop = p2 * log2p2 + 2 * (L - p2);
  EXPECT_LE(counts[0], reps * (per_barrier + per_barrier / 2 + (L > 1 ? 1 : 0)))
      << L << " nodes: " << counts[0] << " signals for " << reps << " barriers";
  EXPECT_LE(counts[1], reps * (per_gop + per_gop / 2 + (L > 1 ? 1 : 0)))
      << L << " nodes: " << counts[1] << " signals for " << reps << " allreduces";
  if (L == 1) {
    EXPECT_EQ(counts[0] + counts[1], 0) << "collectives inside one node sent active messages";
  } else {
    EXPECT_GT(counts[0], 0) << "barriers across nodes sent nothing that was counted";
  }
}

// The notices of messages between nodes (armci_msg_snd) are not answered (a
// reply would double the messages on the wire): only a full window of them
// asks for one Flush.  (Every provider the suite runs keeps one sender's
// messages in order, which unanswered signals need.)
TEST_F(Message, MessageSignalsGetNoReplies) {
  if (armci_domain_count(ARMCI_DOMAIN_SMP) == 1) GTEST_SKIP() << "one node: no active messages";
  // Process 0 and the first process of another node exchange messages.
  int first_other = 1;
  while (armci_domain_id(ARMCI_DOMAIN_SMP, first_other) == armci_domain_id(ARMCI_DOMAIN_SMP, 0)) ++first_other;
  const bool paired = me() == 0 || me() == first_other;
  const int peer = me() == 0 ? first_other : 0;
  armci_msg_barrier();
  const long s0 = std::max(0L, ARMCI_Ofi_stat("am_signal")), r0 = ARMCI_Ofi_stat("am_replies");
  for (int i = 0; i < 200 && paired; ++i) {
    long v = i;
    int len = 0;
    if (me() < peer) {
      armci_msg_snd(7, &v, sizeof v, peer);
      armci_msg_rcv(7, &v, sizeof v, &len, peer);
    } else {
      armci_msg_rcv(7, &v, sizeof v, &len, peer);
      armci_msg_snd(7, &v, sizeof v, peer);
    }
  }
  long counts[2] = {std::max(0L, ARMCI_Ofi_stat("am_signal")) - s0, ARMCI_Ofi_stat("am_replies") - r0};
  armci_msg_lgop(counts, 2, const_cast<char*>("+"));
  EXPECT_GT(counts[0], 0);
  EXPECT_LE(4 * counts[1], counts[0]) << counts[1] << " replies to " << counts[0] << " signals";
}

TEST_F(Message, GopEveryOpTypeScope) {
  all_ops<int>(ARMCI_INT, armci_msg_igop, armci_msg_clus_igop, "ARMCI_INT");
  all_ops<long>(ARMCI_LONG, armci_msg_lgop, armci_msg_clus_lgop, "ARMCI_LONG");
  all_ops<long long>(ARMCI_LONG_LONG, armci_msg_llgop, armci_msg_clus_llgop, "ARMCI_LONG_LONG");
  all_ops<float>(ARMCI_FLOAT, armci_msg_fgop, armci_msg_clus_fgop, "ARMCI_FLOAT");
  all_ops<double>(ARMCI_DOUBLE, armci_msg_dgop, armci_msg_clus_dgop, "ARMCI_DOUBLE");
}

// Floating-point results may depend on the order of the operands: sums of
// very different magnitudes, and max/min of -0.0 and +0.0 (equal, so the
// operand kept is the one on the left).  Every process must still get the
// same bits as process 0 (members that branch on a reduced residual would
// otherwise take different paths).
TEST_F(Message, GopSameBitsOnEveryProcess) {
  const int n = 64;
  auto check = [&](const char* op, auto v) {
    using T = decltype(v);
    std::vector<T> x(n);
    for (int i = 0; i < n; ++i) {
      const double sign = (me() + i) % 3 == 0 ? -1 : 1;
      x[static_cast<std::size_t>(i)] =
          std::string(op) == "+" ? static_cast<T>(sign * std::ldexp(1.0 + 0.1 * me() + 0.01 * i, (me() * 13 + i * 7) % 60 - 30))
                                 : static_cast<T>((me() + i) % 2 ? 0.0 : -0.0);
    }
    if constexpr (std::is_same_v<T, double>) armci_msg_dgop(x.data(), n, mp::op(op));
    else armci_msg_fgop(x.data(), n, mp::op(op));
    auto root = x;
    armci_msg_brdcst(root.data(), static_cast<int>(n * sizeof(T)), 0);
    EXPECT_EQ(std::memcmp(root.data(), x.data(), n * sizeof(T)), 0)
        << "op \"" << op << "\" on " << sizeof(T) << "-byte floats: process " << me() << " differs from process 0";
  };
  for (const char* op : {"+", "max", "min"}) {
    check(op, 0.0);
    check(op, 0.0f);
  }
}

// A long vector (more than 64 KiB) through the reduction tree.
// Reductions longer than one shared chunk (64 KiB) inside a node and across
// nodes: every element summed once, whatever chunk it falls in.
TEST_F(Message, GopOfSeveralChunks) {
  const int n = 3 * 8192 + 17;
  std::vector<double> x(static_cast<std::size_t>(n));
  for (int scope : {SCOPE_ALL, SCOPE_NODE}) {
    for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = me() + 0.5 * i;
    armci_msg_gop_scope(scope, x.data(), n, const_cast<char*>("+"), ARMCI_DOUBLE);
    const auto ranks = scope_ranks(scope);
    double sum_ranks = 0;
    for (int r : ranks) sum_ranks += r;
    int bad = 0;
    for (int i = 0; i < n; ++i)
      if (x[static_cast<std::size_t>(i)] != sum_ranks + 0.5 * i * static_cast<double>(ranks.size())) ++bad;
    EXPECT_EQ(bad, 0) << "scope " << scope << ": elements summed wrongly";
  }
}

TEST_F(Message, GopLong) {
  const int n = 40000;
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = me() * 0.5 + i;
  armci_msg_dgop(x.data(), n, mp::op("+"));
  const double rs = 0.25 * nproc() * (nproc() - 1);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += x[static_cast<std::size_t>(i)] != rs + static_cast<double>(i) * nproc();
  EXPECT_EQ(bad, 0);
}

// Reduce: the result is defined at the scope's first rank only.
TEST_F(Message, Reduce) {
  int xi[3] = {me() + 1, -me(), 7};
  armci_msg_reduce(xi, 3, mp::op("+"), ARMCI_INT);
  const int P = nproc();
  if (me() == 0) {
    EXPECT_EQ(xi[0], P * (P + 1) / 2);
    EXPECT_EQ(xi[1], -P * (P - 1) / 2);
    EXPECT_EQ(xi[2], 7 * P);
  }
  double xd = me() * 1.5;
  armci_msg_reduce(&xd, 1, mp::op("max"), ARMCI_DOUBLE);
  if (me() == 0) {
    EXPECT_EQ(xd, (P - 1) * 1.5);
  }
  const auto node = scope_ranks(SCOPE_NODE);
  long xl = 10L * me();
  armci_msg_reduce_scope(SCOPE_NODE, &xl, 1, mp::op("+"), ARMCI_LONG);
  long want = 0;
  for (int r : node) want += 10L * r;
  if (me() == node[0]) {
    EXPECT_EQ(xl, want);
  }
}

// sel: the record of the best contributing rank (ties: lowest rank) goes to
// everybody in the scope, contributors or not.
template <typename T>
void check_sel(int type, int scope, const char* op, bool all_tie) {
  struct Rec {
    T v;
    int rank;
    long payload[3];
  };
  auto key = [&](int r) { return static_cast<T>(all_tie ? 7 : (r * 5) % 3); };  // ties on purpose
  auto contributes = [&](int r) { return all_tie ? r != 1 || nproc() <= 2 : r % 3 != 1 || nproc() == 1; };
  Rec x{key(me()), me(), {me() * 10L, me() * 20L, -me() * 1L}};
  const int c = contributes(me()) ? 1 : 0;
  if (scope == SCOPE_ALL && type == ARMCI_DOUBLE) armci_msg_sel(&x, static_cast<int>(sizeof x), mp::op(op), type, c);
  else armci_msg_sel_scope(scope, &x, static_cast<int>(sizeof x), mp::op(op), type, c);
  int best = -1;
  for (int r : scope_ranks(scope)) {
    if (!contributes(r)) continue;
    const bool better = best < 0 || (op[1] == 'i' ? key(r) < key(best) : key(r) > key(best));
    if (better) best = r;
  }
  if (best < 0) return;  // nobody in my scope contributed
  EXPECT_EQ(x.rank, best) << op << " scope " << scope << " type " << type << (all_tie ? " (all keys equal)" : "");
  EXPECT_EQ(x.v, key(best));
  EXPECT_EQ(x.payload[0], best * 10L);
  EXPECT_EQ(x.payload[2], -best * 1L);
}

TEST_F(Message, Sel) {
  for (int scope : {SCOPE_ALL, SCOPE_NODE})
    for (const char* op : {"min", "max"})
      for (bool tie : {false, true}) {
        check_sel<int>(ARMCI_INT, scope, op, tie);
        check_sel<long>(ARMCI_LONG, scope, op, tie);
        check_sel<long long>(ARMCI_LONG_LONG, scope, op, tie);
        check_sel<float>(ARMCI_FLOAT, scope, op, tie);
        check_sel<double>(ARMCI_DOUBLE, scope, op, tie);
      }
}

// bintree: one binary tree over the scope's ranks that every rank agrees on.
TEST_F(Message, Bintree) {
  const int P = nproc();
  for (int scope : {SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS}) {
    int root = -2, up = -2, l = -2, r = -2;
    armci_msg_bintree(scope, &root, &up, &l, &r);
    const auto all = mp::allgather(std::vector<long>{root, up, l, r});
    const auto members = scope_ranks(scope);
    if (!in(members, me())) continue;
    auto at = [&](int p, int f) { return static_cast<int>(all[static_cast<std::size_t>(p * 4 + f)]); };
    int reached = 0;
    std::vector<int> todo{root};
    EXPECT_TRUE(in(members, root)) << "root " << root << " scope " << scope;
    if (!in(members, root)) continue;
    EXPECT_EQ(at(root, 1), -1) << "the root has a parent";
    while (!todo.empty() && reached <= P) {
      const int p = todo.back();
      todo.pop_back();
      ++reached;
      EXPECT_EQ(at(p, 0), root) << "rank " << p << " disagrees on the root";
      for (int f : {2, 3}) {
        const int c = at(p, f);
        if (c == -1) continue;
        EXPECT_TRUE(in(members, c)) << "child " << c << " of " << p << " outside the scope";
        EXPECT_EQ(at(c, 1), p) << "child " << c << " names another parent";
        if (in(members, c)) todo.push_back(c);
      }
    }
    EXPECT_EQ(reached, static_cast<int>(members.size())) << "scope " << scope << ": tree does not span it";
  }
}

TEST_F(Message, ExchangeAddress) {
  mp::Shared<int> a(4);
  std::vector<void*> p(static_cast<std::size_t>(nproc()), nullptr);
  p[static_cast<std::size_t>(me())] = a.mine();
  armci_exchange_address(p.data(), nproc());
  for (int r = 0; r < nproc(); ++r) EXPECT_EQ(p[static_cast<std::size_t>(r)], a.of(r)) << "rank " << r;
}

TEST_F(Message, TimerMonotonic) {
  double prev = armci_timer();
  int backwards = 0;
  for (int i = 0; i < 100000; ++i) {
    const double t = armci_timer();
    backwards += t < prev;
    prev = t;
  }
  EXPECT_EQ(backwards, 0);
  const double t0 = armci_timer();
  usleep(20000);
  const double dt = armci_timer() - t0;
  EXPECT_GE(dt, 0.019);
  EXPECT_LT(dt, 5.0);
}

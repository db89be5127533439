// soak: a randomized, self-checking stress run of the one-sided API.
//
//   armcirun -n N ./soak [--ops N | --seconds S] [--threads T] [--seed X] [--words W]
//
// Every thread of every process issues a random mix of put/get/acc/rmw
// (contiguous, strided, vector; blocking, explicit- and implicit-handle
// non-blocking) to random targets, and the final memory is predicted exactly:
//  - a thread puts only into its own (rank, thread) slot of each target, so
//    the last value it put into a word is what must be there (its shadow);
//  - accumulates add small integers (exact in double too), so every word ends
//    at the sum of all threads' recorded deltas, whatever the interleaving;
//  - counters end at the sum of the fetch-and-add increments, and counter 0
//    (always +1) must have handed out 0..n-1, checked through their sum.
// The model is what each thread did, never timing, so --seconds works too;
// --ops makes a run replayable from the printed seed.
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "armci.h"
#include "message.h"

namespace {

constexpr int kCols = 8;        // strided ops see a region as rows of kCols elements
constexpr int kCounters = 4;    // per process and type; counter 0 only ever gets +1
constexpr int kMaxPending = 8;  // outstanding non-blocking ops per thread
constexpr long kPoison = 0x5a5a5a5a5a5a5a5aL;

int me = 0, P = 1, T = 1, W = 64;  // rank, processes, threads, elements per region

char* op(const char* s) { return const_cast<char*>(s); }

uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Our own generator, not <random>'s distributions: a seed then replays the
// same ops with any standard library.
struct Rng {
  uint64_t s = 0;
  uint64_t next() { return mix(s += 0x9e3779b97f4a7c15ull); }
  int U(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<uint64_t>(hi - lo + 1)); }
};

// Bit fields (version | target | writer | thread | word): a stray value
// printed in hex names the put it came from.
long put_value(int writer, int t, int target, int word, long version) {
  return static_cast<long>((static_cast<uint64_t>(version) << 42) ^ (static_cast<uint64_t>(target & 1023) << 32) ^
                           (static_cast<uint64_t>(writer & 1023) << 22) ^ (static_cast<uint64_t>(t & 63) << 16) ^
                           static_cast<uint64_t>(word & 0xffff));
}
std::string hex(long v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%lx", static_cast<unsigned long>(v));
  return b;
}

struct Report {
  std::mutex mu;
  long count = 0;
  std::vector<std::string> lines;
  template <typename V>
  void bad(const char* kind, int target, long word, V got, V want) {
    std::ostringstream o;
    o << "SOAK MISMATCH rank " << me << " kind=" << kind << " target=" << target << " word=" << word
      << " got=" << got << " want=" << want;
    std::lock_guard<std::mutex> l(mu);
    if (++count <= 5) lines.push_back(o.str());
  }
} report;

enum class Form { kContig, kStrided, kVector };

// Elements of a W-element region, in the order they sit in the packed local
// buffer.  Pieces of one op never overlap: ARMCI does not order the pieces
// of a single call, so overlapping puts would make the model guess.
struct Patch {
  Form form = Form::kContig;
  std::vector<int> idx;
  int nc = 1, nr = 1, nb = 1, rstep = 1, bstep = 1, levels = 0;  // strided: nb blocks of nr rows of nc
  int seg = 1;                                                    // vector: elements per piece
  bool split = false;                                             // vector: two descriptors
  std::vector<int> starts;
};

Patch random_patch(Rng& g) {
  Patch p;
  p.form = static_cast<Form>(g.U(0, 2));
  const int R = W / kCols;
  if (p.form == Form::kContig) {
    const int n = g.U(1, W), a = g.U(0, W - n);
    for (int i = 0; i < n; ++i) p.idx.push_back(a + i);
  } else if (p.form == Form::kStrided) {
    p.nc = g.U(1, kCols);
    const int c0 = g.U(0, kCols - p.nc);
    if (g.U(0, 1)) {  // 2 levels: nb blocks of nr adjacent rows, bstep rows apart
      p.nr = g.U(1, std::min(2, R)), p.bstep = p.nr + g.U(0, 1);
      p.nb = g.U(1, (R - p.nr) / p.bstep + 1);
      p.levels = p.nb > 1 ? 2 : 1;
    } else {  // 1 level: nr rows, rstep apart
      p.rstep = g.U(1, 2), p.nr = g.U(1, (R - 1) / p.rstep + 1), p.bstep = R, p.levels = 1;
    }
    if (p.nr == 1 && p.nb == 1 && g.U(0, 1)) p.levels = 0;
    const int r0 = g.U(0, R - 1 - (p.nb - 1) * p.bstep - (p.nr - 1) * p.rstep);
    for (int b = 0; b < p.nb; ++b)
      for (int j = 0; j < p.nr; ++j)
        for (int c = 0; c < p.nc; ++c) p.idx.push_back((r0 + b * p.bstep + j * p.rstep) * kCols + c0 + c);
  } else {
    p.seg = 1 << g.U(0, 2);
    const int blocks = W / p.seg, n = g.U(1, std::min(8, blocks));
    while (static_cast<int>(p.starts.size()) < n) {
      const int s = g.U(0, blocks - 1) * p.seg;
      if (std::find(p.starts.begin(), p.starts.end(), s) == p.starts.end()) p.starts.push_back(s);
    }
    p.split = n >= 2 && g.U(0, 1);
    for (int s : p.starts)
      for (int i = 0; i < p.seg; ++i) p.idx.push_back(s + i);
  }
  return p;
}

// All that ARMCI may still read after a non-blocking call returns (data,
// descriptors, strides, scale) lives here until the op is completed.
struct Pending {
  int target = 0;
  bool implicit = false;
  armci_hdl_t h = 0;
  std::vector<char> buf;
  std::vector<void*> src, dst;
  armci_giov_t iov[2] = {};
  int lstr[2] = {}, rstr[2] = {}, cnt[3] = {};
  alignas(16) char scale[16] = {};
};

enum class Op { kPut, kGet, kAcc };

// Moves the packed `local` buffer to (put, acc) or from (get) patch `pt` of
// the array at `remote` in process k.target; `es` is the element size.
int xfer(Op o, int type, Pending& k, const Patch& pt, char* local, char* remote, int es, bool nb) {
  ARMCI_INIT_HANDLE(&k.h);
  armci_hdl_t* h = k.implicit ? nullptr : &k.h;
  const int p = k.target;
  void* sc = k.scale;
  char* r = remote + static_cast<long>(pt.idx[0]) * es;
  if (pt.form == Form::kContig) {
    const int n = static_cast<int>(pt.idx.size()) * es;
    if (o == Op::kPut) return nb ? ARMCI_NbPut(local, r, n, p, h) : ARMCI_Put(local, r, n, p);
    if (o == Op::kGet) return nb ? ARMCI_NbGet(r, local, n, p, h) : ARMCI_Get(r, local, n, p);
    return nb ? ARMCI_NbAcc(type, sc, local, r, n, p, h) : ARMCI_Acc(type, sc, local, r, n, p);
  }
  if (pt.form == Form::kStrided) {  // count[0] and strides in bytes, local side packed
    k.cnt[0] = pt.nc * es, k.cnt[1] = pt.nr, k.cnt[2] = pt.nb;
    k.lstr[0] = pt.nc * es, k.lstr[1] = pt.nc * pt.nr * es;
    k.rstr[0] = pt.rstep * kCols * es, k.rstr[1] = pt.bstep * kCols * es;
    int *ls = k.lstr, *rs = k.rstr, *c = k.cnt, lv = pt.levels;
    if (o == Op::kPut) return nb ? ARMCI_NbPutS(local, ls, r, rs, c, lv, p, h) : ARMCI_PutS(local, ls, r, rs, c, lv, p);
    if (o == Op::kGet) return nb ? ARMCI_NbGetS(r, rs, local, ls, c, lv, p, h) : ARMCI_GetS(r, rs, local, ls, c, lv, p);
    return nb ? ARMCI_NbAccS(type, sc, local, ls, r, rs, c, lv, p, h)
              : ARMCI_AccS(type, sc, local, ls, r, rs, c, lv, p);
  }
  const int n = static_cast<int>(pt.starts.size());
  k.src.resize(n), k.dst.resize(n);
  for (int i = 0; i < n; ++i) {
    void* loc = local + static_cast<long>(i) * pt.seg * es;
    void* rem = remote + static_cast<long>(pt.starts[i]) * es;
    k.src[i] = o == Op::kGet ? rem : loc, k.dst[i] = o == Op::kGet ? loc : rem;
  }
  const int first = pt.split ? n / 2 : n, nd = first < n ? 2 : 1;
  k.iov[0] = {k.src.data(), k.dst.data(), first, pt.seg * es};
  k.iov[1] = {k.src.data() + first, k.dst.data() + first, n - first, pt.seg * es};
  if (o == Op::kPut) return nb ? ARMCI_NbPutV(k.iov, nd, p, h) : ARMCI_PutV(k.iov, nd, p);
  if (o == Op::kGet) return nb ? ARMCI_NbGetV(k.iov, nd, p, h) : ARMCI_GetV(k.iov, nd, p);
  return nb ? ARMCI_NbAccV(type, sc, k.iov, nd, p, h) : ARMCI_AccV(type, sc, k.iov, nd, p);
}

// What one thread did: the whole model.
struct Worker {
  int t = 0;
  Rng g;
  long ops = 0, version = 0;
  std::vector<long> shadow;  // P*W: my put slot in each target, as I last wrote it
  std::vector<double> dd;    // P*W per type: what I accumulated into each target
  std::vector<int> di;
  std::vector<long> dl;
  // Laid out as CounterRegion's reduction: P*kCounters int adds, as many
  // long adds, then (int, then long) counter 0's fetched values summed per
  // target and their number per target.
  std::vector<long> ctr;
  std::vector<std::unique_ptr<Pending>> pending;
};

// Completes this thread's non-blocking ops to `target` (all if -1) so their
// buffers may go; the completion call is picked at random so each is used.
void drain(Worker& w, int target) {
  bool implicit = false;
  for (auto& k : w.pending) {
    if (target >= 0 && k->target != target) continue;
    if (k->implicit) implicit = true;
    else if (w.g.U(0, 3) == 0) while (ARMCI_Test(&k->h) != 0) sched_yield();
    else if (int rc = ARMCI_Wait(&k->h)) report.bad("wait-rc", k->target, -1, rc, 0);
  }
  // WaitAll, WaitProc and the fences complete implicit ops of all threads.
  if (implicit && w.g.U(0, 1)) target < 0 ? (void)ARMCI_WaitAll() : (void)ARMCI_WaitProc(target);
  else if (implicit) target < 0 ? ARMCI_AllFence() : ARMCI_Fence(target);
  std::erase_if(w.pending, [&](const auto& k) { return target < 0 || k->target == target; });
}

// One put or accumulate to a random target, built and issued by
// fill(pending, patch, nb); non-blocking ones stay pending until drain().
template <typename F>
void write_op(Worker& w, const char* kind, F&& fill) {
  const int mode = w.g.U(0, 2);  // blocking, explicit handle, implicit handle
  auto k = std::make_unique<Pending>();
  k->target = w.g.U(0, P - 1), k->implicit = mode == 2;
  if (int rc = fill(*k, random_patch(w.g), mode != 0)) report.bad(kind, k->target, -1, rc, 0);
  if (mode) w.pending.push_back(std::move(k));
}

template <typename T>
T* at(const std::vector<void*>& base, int p) { return static_cast<T*>(base[p]); }

template <typename T>
void alloc(std::vector<void*>& base, long n) {
  base.assign(P, nullptr);
  if (ARMCI_Malloc(base.data(), n * static_cast<long>(sizeof(T))) != 0) ARMCI_Error("soak: ARMCI_Malloc failed", 1);
  std::fill_n(at<T>(base, me), n, T(0));  // ARMCI_Malloc does not clear
}

// (a) P*T slots of W longs per process; slot (writer, thread) is written
// only by that thread, so its final content is the writer's shadow.
struct PutRegion {
  std::vector<void*> base;
  void alloc_() { alloc<long>(base, static_cast<long>(P) * T * W); }
  char* slot(int target, int writer, int t) const {
    return reinterpret_cast<char*>(at<long>(base, target) + (static_cast<long>(writer) * T + t) * W);
  }
  void put(Worker& w) const {
    write_op(w, "put-rc", [&](Pending& k, const Patch& pt, bool nb) {
      k.buf.resize(pt.idx.size() * sizeof(long));
      long* v = reinterpret_cast<long*>(k.buf.data());
      ++w.version;
      for (std::size_t j = 0; j < pt.idx.size(); ++j)
        w.shadow[k.target * W + pt.idx[j]] = v[j] = put_value(me, w.t, k.target, pt.idx[j], w.version);
      return xfer(Op::kPut, 0, k, pt, k.buf.data(), slot(k.target, me, w.t), sizeof(long), nb);
    });
  }
  // Reading my own slot once my puts there are complete must return them;
  // without the fence this leans on location consistency alone.
  void check(Worker& w) const {
    const int tgt = w.g.U(0, P - 1);
    drain(w, tgt);
    const bool fenced = w.g.U(0, 1);
    if (fenced) ARMCI_Fence(tgt);
    const Patch pt = random_patch(w.g);
    const int mode = w.g.U(0, 2);
    Pending k;
    k.target = tgt, k.implicit = mode == 2;
    std::vector<long> got(pt.idx.size(), kPoison);
    if (int rc = xfer(Op::kGet, 0, k, pt, reinterpret_cast<char*>(got.data()), slot(tgt, me, w.t), sizeof(long),
                      mode != 0))
      report.bad("get-rc", tgt, -1, rc, 0);
    if (mode == 1) ARMCI_Wait(&k.h);
    if (mode == 2) ARMCI_WaitProc(tgt);
    for (std::size_t j = 0; j < pt.idx.size(); ++j)
      if (const long want = w.shadow[tgt * W + pt.idx[j]]; got[j] != want)
        report.bad(fenced ? "get" : "get-nofence", tgt, pt.idx[j], hex(got[j]), hex(want));
  }
  void final_check(const std::vector<Worker>& ws) const {
    std::vector<long> got(W);
    for (const auto& w : ws)
      for (int p = 0; p < P; ++p) {
        std::fill(got.begin(), got.end(), kPoison);
        ARMCI_Get(slot(p, me, w.t), got.data(), W * static_cast<int>(sizeof(long)), p);
        for (int i = 0; i < W; ++i)
          if (got[i] != w.shadow[p * W + i]) report.bad("put", p, i, hex(got[i]), hex(w.shadow[p * W + i]));
      }
  }
};

// (b) W doubles, ints and longs per process that everyone accumulates into.
struct AccRegion {
  std::vector<void*> d, i, l;
  void alloc_() { alloc<double>(d, W), alloc<int>(i, W), alloc<long>(l, W); }
  template <typename T>
  static void one(Worker& w, std::vector<T>& delta, int type, const std::vector<void*>& base) {
    write_op(w, "acc-rc", [&](Pending& k, const Patch& pt, bool nb) {
      const T scale = static_cast<T>(w.g.U(-3, 3));
      std::memcpy(k.scale, &scale, sizeof scale);
      k.buf.resize(pt.idx.size() * sizeof(T));
      T* v = reinterpret_cast<T*>(k.buf.data());
      for (std::size_t j = 0; j < pt.idx.size(); ++j) {
        v[j] = static_cast<T>(w.g.U(-8, 8));
        delta[k.target * W + pt.idx[j]] += scale * v[j];
      }
      char* remote = reinterpret_cast<char*>(at<T>(base, k.target));
      return xfer(Op::kAcc, type, k, pt, k.buf.data(), remote, sizeof(T), nb);
    });
  }
  void acc(Worker& w) const {
    switch (w.g.U(0, 2)) {
      case 0: one(w, w.dd, ARMCI_ACC_DBL, d); break;
      case 1: one(w, w.di, ARMCI_ACC_INT, i); break;
      default: one(w, w.dl, ARMCI_ACC_LNG, l);
    }
  }
  // Everyone's deltas, summed by a reduction; each process checks its own W.
  template <typename T>
  static void check(const std::vector<Worker>& ws, std::vector<T> Worker::*delta, const std::vector<void*>& base,
                    void (*gop)(T*, int, char*), const char* kind) {
    std::vector<T> sum(P * W, T(0));
    for (const auto& w : ws)
      for (std::size_t j = 0; j < sum.size(); ++j) sum[j] += (w.*delta)[j];
    gop(sum.data(), P * W, op("+"));
    const T* mine = at<T>(base, me);
    for (int j = 0; j < W; ++j)
      if (mine[j] != sum[me * W + j]) report.bad(kind, me, j, mine[j], sum[me * W + j]);
  }
  void final_check(const std::vector<Worker>& ws) const {
    check(ws, &Worker::dd, d, armci_msg_dgop, "acc-dbl");
    check(ws, &Worker::di, i, armci_msg_igop, "acc-int");
    check(ws, &Worker::dl, l, armci_msg_lgop, "acc-lng");
  }
};

// (c) kCounters ints and longs per process, moved only by fetch-and-add.
struct CounterRegion {
  std::vector<void*> ci, cl;
  static int size() { return 2 * P * kCounters + 4 * P; }
  void alloc_() { alloc<int>(ci, kCounters), alloc<long>(cl, kCounters); }
  void rmw(Worker& w) const {
    const int tgt = w.g.U(0, P - 1), c = w.g.U(0, kCounters - 1), inc = c == 0 ? 1 : w.g.U(1, 9);
    const bool lng = w.g.U(0, 1);
    long old = -1, add = inc;
    int rc, iold = -1;
    if (!lng) {
      rc = ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &iold, at<int>(ci, tgt) + c, inc, tgt), old = iold;
    } else if (c != 0 && w.g.U(0, 3) == 0) {  // past 32 bits, through the extension
      add = static_cast<long>(inc) << 32;
      rc = ARMCI_Rmw_long(ARMCI_FETCH_AND_ADD_LONG, &old, at<long>(cl, tgt) + c, add, tgt);
    } else {
      rc = ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, at<long>(cl, tgt) + c, inc, tgt);
    }
    if (rc) report.bad("rmw-rc", tgt, c, rc, 0);
    if (old < 0) report.bad(lng ? "rmw-lng-old" : "rmw-int-old", tgt, c, old, 0L);
    w.ctr[(lng ? P * kCounters : 0) + tgt * kCounters + c] += add;
    if (c == 0) {
      const int f = 2 * P * kCounters + (lng ? 2 * P : 0);
      w.ctr[f + tgt] += old, ++w.ctr[f + P + tgt];
    }
  }
  void final_check(const std::vector<Worker>& ws) const {
    std::vector<long> v(size(), 0);
    for (const auto& w : ws)
      for (int j = 0; j < size(); ++j) v[j] += w.ctr[j];
    armci_msg_lgop(v.data(), size(), op("+"));
    for (int c = 0; c < kCounters; ++c) {
      const long got_i = at<int>(ci, me)[c], want_i = v[me * kCounters + c];
      const long got_l = at<long>(cl, me)[c], want_l = v[P * kCounters + me * kCounters + c];
      if (got_i != want_i) report.bad("rmw-int", me, c, got_i, want_i);
      if (got_l != want_l) report.bad("rmw-lng", me, c, got_l, want_l);
    }
    // n fetch-and-adds of 1 hand out 0..n-1 once each: their sum is known.
    for (int k = 0; k < 2; ++k) {
      const int f = 2 * P * kCounters + 2 * k * P;
      const long sum = v[f + me], n = v[f + P + me];
      if (sum != n * (n - 1) / 2) report.bad(k ? "rmw-lng-fetched" : "rmw-int-fetched", me, 0, sum, n * (n - 1) / 2);
    }
  }
};

PutRegion g_put;
AccRegion g_acc;
CounterRegion g_ctr;

void run(Worker& w, long ops, double end) {
  while (ops >= 0 ? w.ops < ops : armci_timer() < end) {
    const int r = w.g.U(0, 99);
    if (r < 35) g_put.put(w);
    else if (r < 50) g_put.check(w);
    else if (r < 85) g_acc.acc(w);
    else g_ctr.rmw(w);
    ++w.ops;
    if (static_cast<int>(w.pending.size()) >= kMaxPending || w.g.U(0, 15) == 0) drain(w, -1);
  }
  drain(w, -1);
}

struct Options {
  double seconds = 5;
  long ops = -1;
  int threads = 2, words = 64;
  unsigned long long seed = 0;
  bool seed_given = false;
};

const char* kUsage =
    "usage: armcirun -n N soak [--ops N | --seconds S] [--threads T] [--seed X] [--words W]\n"
    "  --ops N      ops per thread; overrides --seconds and makes the run replayable with --seed\n"
    "  --seconds S  run for S seconds (default 5)    --threads T  threads per process (default 2)\n"
    "  --seed X     default: from the clock; always printed\n"
    "  --words W    elements per region, a multiple of 8 (default 64)\n";

// "" when fine, "help", or what is wrong.
std::string parse(int argc, char** argv, Options& o) {
  for (int a = 1; a < argc; ++a) {
    std::string key = argv[a], val;
    if (key == "-h" || key == "--help") return "help";
    if (const auto eq = key.find('='); eq != std::string::npos) val = key.substr(eq + 1), key.resize(eq);
    else if (a + 1 < argc) val = argv[++a];
    else return "missing value for " + key;
    char* end = nullptr;
    if (key == "--seconds") o.seconds = std::strtod(val.c_str(), &end);
    else if (key == "--ops") o.ops = std::strtol(val.c_str(), &end, 0);
    else if (key == "--threads") o.threads = static_cast<int>(std::strtol(val.c_str(), &end, 0));
    else if (key == "--words") o.words = static_cast<int>(std::strtol(val.c_str(), &end, 0));
    else if (key == "--seed") o.seed = std::strtoull(val.c_str(), &end, 0), o.seed_given = true;
    else return "unknown option " + key;
    if (val.empty() || *end) return "bad value '" + val + "' for " + key;
  }
  if (!(o.seconds > 0) && o.ops < 0) return "--seconds must be > 0";
  if (o.threads < 1 || o.threads > 64) return "--threads must be 1..64";
  if (o.words < kCols || o.words > 65536 || o.words % kCols) return "--words must be a multiple of 8 in 8..65536";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  // Nothing reports the level granted: a non-zero return is the only "less".
  const bool multiple = ARMCI_Init_thread(ARMCI_THREAD_MULTIPLE) == 0;
  if (!multiple && !ARMCI_Initialized()) ARMCI_Init();
  me = armci_msg_me(), P = armci_msg_nproc();
  Options o;
  if (const std::string err = parse(argc, argv, o); !err.empty()) {
    if (me == 0 && err == "help") std::fputs(kUsage, stdout);
    else if (me == 0) std::fprintf(stderr, "soak: %s\n%s", err.c_str(), kUsage);
    ARMCI_Finalize();
    return err == "help" ? 0 : 2;
  }
  if (!multiple) {
    if (me == 0) std::printf("SOAK ARMCI_THREAD_MULTIPLE not provided: using 1 thread\n");
    o.threads = 1;
  }
  if (!o.seed_given)
    o.seed = mix(static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count())) % 1000000000000ull;
  armci_msg_bcast(&o.seed, sizeof o.seed, 0);  // clocks differ: rank 0's seed is the one printed
  T = o.threads, W = o.words;
  if (me == 0) {
    std::printf("SOAK seed=%llu\n", o.seed);
    std::printf("SOAK config procs=%d threads=%d words=%d %s=%g\n", P, T, W, o.ops >= 0 ? "ops" : "seconds",
                o.ops >= 0 ? static_cast<double>(o.ops) : o.seconds);
    std::fflush(stdout);
  }

  g_put.alloc_(), g_acc.alloc_(), g_ctr.alloc_();
  std::vector<Worker> ws(T);
  for (int t = 0; t < T; ++t) {
    Worker& w = ws[t];
    w.t = t;
    w.g.s = mix(o.seed ^ mix((static_cast<uint64_t>(me) << 16 | static_cast<uint64_t>(t)) + 1));
    w.shadow.assign(P * W, 0), w.dd.assign(P * W, 0), w.di.assign(P * W, 0), w.dl.assign(P * W, 0);
    w.ctr.assign(CounterRegion::size(), 0);
  }
  ARMCI_Barrier();  // every region is zeroed before anyone writes

  const double t0 = armci_timer();
  if (!multiple) {  // below MULTIPLE only the main thread may call ARMCI
    run(ws[0], o.ops, t0 + o.seconds);
  } else {
    std::vector<std::thread> th;
    for (auto& w : ws) th.emplace_back(run, std::ref(w), o.ops, t0 + o.seconds);
    for (auto& x : th) x.join();
  }
  ARMCI_Barrier();  // AllFence + barrier: every op of every process is in memory
  double wall = armci_timer() - t0;

  // Collectives below are reached in the same order everywhere, so the put
  // check's remote reads are over before anyone frees.
  g_put.final_check(ws);
  g_acc.final_check(ws);
  g_ctr.final_check(ws);
  for (const auto& line : report.lines) std::fprintf(stderr, "%s\n", line.c_str());

  long totals[2] = {0, report.count};
  for (const auto& w : ws) totals[0] += w.ops;
  armci_msg_lgop(totals, 2, op("+"));
  armci_msg_dgop(&wall, 1, op("max"));
  if (me == 0)
    std::printf("SOAK procs=%d threads=%d ops=%ld seconds=%.3f ops_per_s=%.0f mismatches=%ld seed=%llu\n", P, T,
                totals[0], wall, wall > 0 ? static_cast<double>(totals[0]) / wall : 0.0, totals[1], o.seed);
  std::fflush(stdout);

  ARMCI_Free(at<void>(g_ctr.cl, me)), ARMCI_Free(at<void>(g_ctr.ci, me));
  ARMCI_Free(at<void>(g_acc.l, me)), ARMCI_Free(at<void>(g_acc.i, me)), ARMCI_Free(at<void>(g_acc.d, me));
  ARMCI_Free(at<void>(g_put.base, me));
  ARMCI_Finalize();
  return totals[1] == 0 ? 0 : 1;
}

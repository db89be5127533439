// peer_bench: one benchmark source built three times, so armci-ofi is
// measured next to what a user would run instead, with the same processes
// and placement in the same run (perf/peer_compare.sh):
//   PEER_ARMCI (default)     the public ARMCI API, linked with armci-ofi;
//   PEER_ARMCI + PEER_MPI    the same calls linked with ARMCI-MPI (MPI first);
//   PEER_MPI_RMA             MPI-3 RMA, passive target (lock_all + flush).
// Process 0 drives, process 1 is the target; any others wait.  Rows: blocking
// put (+ remote completion), get, accumulate (double) latency; windowed put
// and get bandwidth; 2-D strided patches of 256 B and 1 KiB rows; vector
// transfers of 256 B pieces; message rate of 8-64 B non-blocking puts and
// gets in windows of 1..256.
//
//   peer_bench --label NAME [--where intra|inter] [--max BYTES] [--csv FILE] [--latency]
//              [--profile put|get|acc --calls N]
// --latency: only the blocking put/get/acc rows of 8 B, for the alternated
// rounds perf/peer_compare.sh runs between the runtimes.
// --profile: N blocking 8 B calls of one kind and nothing else, untimed, so
// that a tracer's counts of two launches with different N, subtracted, are
// that call's own cost (perf/op_profile.sh).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "perf/bench_util.hpp"

// MPI's C API only (no C++ bindings to link).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#if defined(PEER_MPI_RMA)
#include <mpi.h>
#else
#if defined(PEER_MPI)
#include <mpi.h>
#endif
// ARMCI-MPI's headers lack C++ guards; ours have them (nesting is harmless).
extern "C" {
#include "armci.h"
#include "message.h"
}
#endif

using namespace bench;

namespace {

constexpr int kWindow = 16;  // bandwidth: transfers in flight

#if defined(PEER_MPI_RMA)
// MPI-3 RMA as a careful MPI user writes it: one window, lock_all once,
// flush for remote completion, Type_vector for strided patches.
class Backend {
 public:
  Backend(int* argc, char*** argv, std::size_t bytes) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me_);
    MPI_Comm_size(MPI_COMM_WORLD, &n_);
    MPI_Win_allocate(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base_, &win_);
    std::memset(base_, 0, bytes);
    MPI_Win_lock_all(0, win_);
  }
  ~Backend() {
    for (auto& kv : types_) MPI_Type_free(&kv.second);
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
    MPI_Finalize();
  }
  static const char* name() { return "MPI-3 RMA"; }
  int me() const { return me_; }
  int nproc() const { return n_; }
  void barrier() { MPI_Barrier(MPI_COMM_WORLD); }
  void put(const void* src, std::size_t off, std::size_t n, int p) { nbput(src, off, n, p); fence(p); }
  void get(void* dst, std::size_t off, std::size_t n, int p) { nbget(dst, off, n, p); MPI_Win_flush_local(p, win_); }
  void acc(const double* src, std::size_t off, std::size_t n, int p) {
    MPI_Accumulate(src, static_cast<int>(n / 8), MPI_DOUBLE, p, static_cast<MPI_Aint>(off),
                   static_cast<int>(n / 8), MPI_DOUBLE, MPI_SUM, win_);
    fence(p);
  }
  void nbput(const void* src, std::size_t off, std::size_t n, int p) {
    MPI_Put(src, static_cast<int>(n), MPI_BYTE, p, static_cast<MPI_Aint>(off), static_cast<int>(n), MPI_BYTE, win_);
  }
  void nbget(void* dst, std::size_t off, std::size_t n, int p) {
    MPI_Get(dst, static_cast<int>(n), MPI_BYTE, p, static_cast<MPI_Aint>(off), static_cast<int>(n), MPI_BYTE, win_);
  }
  void wait_all(int p) { MPI_Win_flush_local(p, win_); }
  void fence(int p) { MPI_Win_flush(p, win_); }
  // rows x row bytes, every other row (stride 2 x row) on both sides.
  void puts(const char* src, std::size_t off, int row, int rows, int p) {
    MPI_Datatype t = vec(row, rows);
    MPI_Put(src, 1, t, p, static_cast<MPI_Aint>(off), 1, t, win_);
    fence(p);
  }
  void gets(char* dst, std::size_t off, int row, int rows, int p) {
    MPI_Datatype t = vec(row, rows);
    MPI_Get(dst, 1, t, p, static_cast<MPI_Aint>(off), 1, t, win_);
    MPI_Win_flush_local(p, win_);
  }
  // Vector: the same pieces as puts/gets, one MPI call each (what a port of
  // an I/O-vector call does without building a datatype).
  void putv(const char* src, std::size_t off, int row, int rows, int p) {
    for (int i = 0; i < rows; ++i) nbput(src + 2 * i * row, off + 2 * static_cast<std::size_t>(i) * row, static_cast<std::size_t>(row), p);
    fence(p);
  }
  void getv(char* dst, std::size_t off, int row, int rows, int p) {
    for (int i = 0; i < rows; ++i) nbget(dst + 2 * i * row, off + 2 * static_cast<std::size_t>(i) * row, static_cast<std::size_t>(row), p);
    MPI_Win_flush_local(p, win_);
  }

 private:
  // Committed once per shape, as a real code keeps its datatypes.
  MPI_Datatype vec(int row, int rows) {
    const long key = static_cast<long>(row) << 32 | static_cast<unsigned>(rows);
    auto it = types_.find(key);
    if (it != types_.end()) return it->second;
    MPI_Datatype t;
    MPI_Type_vector(rows, row, 2 * row, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return types_[key] = t;
  }
  std::map<long, MPI_Datatype> types_;
  int me_ = 0, n_ = 0;
  void* base_ = nullptr;
  MPI_Win win_;
};
#else
// The ARMCI API; `off` is an offset into the target's ARMCI_Malloc block.
class Backend {
 public:
  Backend(int* argc, char*** argv, std::size_t bytes) {
#if defined(PEER_MPI)
    MPI_Init(argc, argv);  // ARMCI-MPI runs on an initialised MPI
#endif
    ARMCI_Init_args(argc, argv);
    n_ = armci_msg_nproc();
    me_ = armci_msg_me();
    ptrs_.resize(static_cast<std::size_t>(n_));
    if (ARMCI_Malloc(ptrs_.data(), static_cast<armci_size_t>(bytes)) != 0) ARMCI_Error(const_cast<char*>("peer_bench: ARMCI_Malloc"), 1);
    std::memset(ptrs_[static_cast<std::size_t>(me_)], 0, bytes);
  }
  ~Backend() {
    ARMCI_Free(ptrs_[static_cast<std::size_t>(me_)]);
    ARMCI_Finalize();
#if defined(PEER_MPI)
    MPI_Finalize();
#endif
  }
#if defined(PEER_MPI)
  static const char* name() { return "ARMCI-MPI"; }
#else
  static const char* name() { return "armci-ofi"; }
#endif
  int me() const { return me_; }
  int nproc() const { return n_; }
  void barrier() { ARMCI_Barrier(); }
  void put(const void* src, std::size_t off, std::size_t n, int p) {
    ARMCI_Put(const_cast<void*>(src), at(p, off), static_cast<int>(n), p);
    ARMCI_Fence(p);
  }
  void get(void* dst, std::size_t off, std::size_t n, int p) { ARMCI_Get(at(p, off), dst, static_cast<int>(n), p); }
  void acc(const double* src, std::size_t off, std::size_t n, int p) {
    double one = 1.0;
    ARMCI_Acc(ARMCI_ACC_DBL, &one, const_cast<double*>(src), at(p, off), static_cast<int>(n), p);
    ARMCI_Fence(p);
  }
  void nbput(const void* src, std::size_t off, std::size_t n, int p) {
    ARMCI_NbPut(const_cast<void*>(src), at(p, off), static_cast<int>(n), p, nullptr);
  }
  void nbget(void* dst, std::size_t off, std::size_t n, int p) {
    ARMCI_NbGet(at(p, off), dst, static_cast<int>(n), p, nullptr);
  }
  void wait_all(int) { ARMCI_WaitAll(); }
  void fence(int p) { ARMCI_Fence(p); }
  void puts(const char* src, std::size_t off, int row, int rows, int p) {
    int stride[1] = {2 * row}, count[2] = {row, rows};
    ARMCI_PutS(const_cast<char*>(src), stride, at(p, off), stride, count, 1, p);
    ARMCI_Fence(p);
  }
  void gets(char* dst, std::size_t off, int row, int rows, int p) {
    int stride[1] = {2 * row}, count[2] = {row, rows};
    ARMCI_GetS(at(p, off), stride, dst, stride, count, 1, p);
  }
  void putv(const char* src, std::size_t off, int row, int rows, int p) {
    armci_giov_t v = vec(const_cast<char*>(src), static_cast<char*>(at(p, off)), row, rows);
    ARMCI_PutV(&v, 1, p);
    ARMCI_Fence(p);
  }
  void getv(char* dst, std::size_t off, int row, int rows, int p) {
    armci_giov_t v = vec(static_cast<char*>(at(p, off)), dst, row, rows);
    ARMCI_GetV(&v, 1, p);
  }

 private:
  void* at(int p, std::size_t off) { return static_cast<char*>(ptrs_[static_cast<std::size_t>(p)]) + off; }
  armci_giov_t vec(char* src, char* dst, int row, int rows) {
    src_.resize(static_cast<std::size_t>(rows));
    dst_.resize(static_cast<std::size_t>(rows));
    for (int i = 0; i < rows; ++i) {
      src_[static_cast<std::size_t>(i)] = src + 2 * i * row;
      dst_[static_cast<std::size_t>(i)] = dst + 2 * i * row;
    }
    armci_giov_t v;
    v.src_ptr_array = src_.data();
    v.dst_ptr_array = dst_.data();
    v.ptr_array_len = rows;
    v.bytes = row;
    return v;
  }
  int me_ = 0, n_ = 0;
  std::vector<void*> ptrs_;
  std::vector<void*> src_, dst_;
};
#endif

struct Out {
  std::string label, where;
  FILE* csv = nullptr;
  // One measurement: a RESULT line and a CSV row.
  void row(const char* op, std::size_t bytes, double seconds, double mbs, double rate = 0) {
    std::printf("%-10s %-6s %-14s %8s %11.3f %11.1f %12.0f\n", label.c_str(), where.c_str(), op,
                size_text(bytes).c_str(), seconds * 1e6, mbs, rate);
    std::printf("RESULT peer_bench %s.%s.%s.%zu %.4f us\n", label.c_str(), where.c_str(), op, bytes, seconds * 1e6);
    if (csv)
      std::fprintf(csv, "%s,%s,%s,%zu,%g,%g,%g\n", label.c_str(), where.c_str(), op, bytes, seconds * 1e6, mbs, rate);
    std::fflush(stdout);
  }
};

// Page-aligned like the remote blocks: a malloc'd buffer starts 16 bytes into
// its page, where glibc's memcpy is 25x slower on some x86 cores (see
// common/copy.hpp); armci-ofi steers around that, the peers do not, and the
// comparison is about the runtimes, not that accident.
struct Buffer {
  explicit Buffer(std::size_t n) : p(static_cast<char*>(std::aligned_alloc(4096, (n + 4095) / 4096 * 4096))) {
    std::memset(p, 1, n);
  }
  ~Buffer() { std::free(p); }
  char* data() const { return p; }
  char* p;
};

// Blocking 8 B put, get and accumulate only: one short process per round.
void run_latency(Backend& b, Out& out) {
  const int t = 1;
  Buffer local(4096);
  double one[1] = {1.0};
  const int it = 2000;
  double s = per_call([&] { b.put(local.data(), 0, 8, t); }, it, 7);
  out.row("put", 8, s, mbps(8, s));
  s = per_call([&] { b.get(local.data(), 0, 8, t); }, it, 7);
  out.row("get", 8, s, mbps(8, s));
  s = per_call([&] { b.acc(one, 0, 8, t); }, it, 7);
  out.row("acc", 8, s, mbps(8, s));
}

// N blocking 8 B calls of one kind (--profile).
bool run_profile(Backend& b, const std::string& op, long calls) {
  const int t = 1;
  Buffer local(4096);
  double one[1] = {1.0};
  for (long i = 0; i < calls; ++i) {
    if (op == "put") b.put(local.data(), 0, 8, t);
    else if (op == "get") b.get(local.data(), 0, 8, t);
    else if (op == "acc") b.acc(one, 0, 8, t);
    else return false;
  }
  std::printf("peer_bench: %ld blocking 8 B %s calls\n", calls, op.c_str());
  return true;
}

// Bytes each side needs: windows of `max` and the message rate's 256 x 64 B.
std::size_t region(std::size_t max) { return std::max<std::size_t>(max * 2, 256 * 64) + 4096; }

void run(Backend& b, Out& out, std::size_t max) {
  const int t = 1;
  Buffer local(region(max));
  std::vector<double> dbl(max / 8 + 1, 1.0);
  std::printf("%-10s %-6s %-14s %8s %11s %11s %12s\n", "runtime", "where", "operation", "bytes", "us", "MB/s",
              "ops/s");
  std::vector<std::size_t> sizes;
  for (std::size_t n = 8; n <= max; n *= 4) sizes.push_back(n);
  if (sizes.back() != max) sizes.push_back(max);  // the 1 MiB row the targets name
  for (std::size_t n : sizes) {
    const int it = iters_for(n, 16u << 20, 5, 2000);
    double s = per_call([&] { b.put(local.data(), 0, n, t); }, it);
    out.row("put", n, s, mbps(n, s));
    s = per_call([&] { b.get(local.data(), 0, n, t); }, it);
    out.row("get", n, s, mbps(n, s));
    s = per_call([&] { b.acc(dbl.data(), 0, n, t); }, it);
    out.row("acc", n, s, mbps(n, s));
    const std::size_t w = std::min<std::size_t>(kWindow, (max * 2) / n);
    const int wit = iters_for(n * w, 32u << 20, 3, 1000);
    s = per_call([&] {
      for (std::size_t k = 0; k < w; ++k) b.nbput(local.data() + k * n, k * n, n, t);
      b.wait_all(t);
      b.fence(t);
    }, wit, 3);
    out.row("put_window", n, s / static_cast<double>(w), mbps(n * w, s));
    s = per_call([&] {
      for (std::size_t k = 0; k < w; ++k) b.nbget(local.data() + k * n, k * n, n, t);
      b.wait_all(t);
    }, wit, 3);
    out.row("get_window", n, s / static_cast<double>(w), mbps(n * w, s));
    // 2-D patches: rows of 256 B and of 1 KiB, every other row on both sides.
    for (int row : {256, 1024}) {
      if (n < static_cast<std::size_t>(row)) continue;
      const int rows = static_cast<int>(n / static_cast<std::size_t>(row));
      const std::string ps = "puts_" + std::to_string(row), gs = "gets_" + std::to_string(row);
      s = per_call([&] { b.puts(local.data(), 0, row, rows, t); }, it);
      out.row(ps.c_str(), n, s, mbps(n, s));
      s = per_call([&] { b.gets(local.data(), 0, row, rows, t); }, it);
      out.row(gs.c_str(), n, s, mbps(n, s));
    }
    if (n >= 256) {
      const int rows = static_cast<int>(n / 256);
      s = per_call([&] { b.putv(local.data(), 0, 256, rows, t); }, it);
      out.row("putv_256", n, s, mbps(n, s));
      s = per_call([&] { b.getv(local.data(), 0, 256, rows, t); }, it);
      out.row("getv_256", n, s, mbps(n, s));
    }
  }
  // Message rate: `win` non-blocking puts (`stride` bytes apart remotely),
  // then completion.
  auto put_rate = [&](const char* name, std::size_t n, int win, std::size_t stride) {
    const double s = per_call([&] {
      for (int k = 0; k < win; ++k)
        b.nbput(local.data() + static_cast<std::size_t>(k) * n, static_cast<std::size_t>(k) * stride, n, t);
      b.wait_all(t);
      b.fence(t);
    }, std::max(20, 20000 / win), 3);
    const std::string op = name + std::to_string(win);
    out.row(op.c_str(), n, s / win, mbps(n * static_cast<std::size_t>(win), s), win / s);
  };
  for (std::size_t n : {std::size_t{8}, std::size_t{64}}) {
    for (int win = 1; win <= 256; win *= 4) {
      put_rate("rate_put_w", n, win, n);
      const double s = per_call([&] {
        for (int k = 0; k < win; ++k) b.nbget(local.data() + static_cast<std::size_t>(k) * n, static_cast<std::size_t>(k) * n, n, t);
        b.wait_all(t);
      }, std::max(20, 20000 / win), 3);
      const std::string op = "rate_get_w" + std::to_string(win);
      out.row(op.c_str(), n, s / win, mbps(n * static_cast<std::size_t>(win), s), win / s);
    }
  }
  // The same puts with a gap after each: no two continue one another, so
  // none share a coalesced record (Batch::put); the rows above are the
  // loop over consecutive elements.
  for (int win : {16, 256}) put_rate("rate_put_gap_w", 8, win, 16);
}

}  // namespace

int main(int argc, char** argv) {
  Out out;
  out.label = Backend::name();
  out.where = "-";
  std::size_t max = 1u << 20;
  std::string csv;
  bool latency = false;
  std::string profile;
  long calls = 1000;
  bool bad_profile = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--label" && i + 1 < argc) out.label = argv[++i];
    else if (a == "--where" && i + 1 < argc) out.where = argv[++i];
    else if (a == "--max" && i + 1 < argc) max = std::strtoul(argv[++i], nullptr, 0);
    else if (a == "--csv" && i + 1 < argc) csv = argv[++i];
    else if (a == "--latency") latency = true;
    else if (a == "--profile" && i + 1 < argc) profile = argv[++i];
    else if (a == "--calls" && i + 1 < argc) calls = std::strtol(argv[++i], nullptr, 0);
  }
  Backend b(&argc, &argv, region(max));
  if (b.nproc() < 2) {
    if (b.me() == 0) std::fprintf(stderr, "peer_bench: needs 2 processes\n");
    return 2;
  }
  b.barrier();
  if (b.me() == 0) {
    if (!csv.empty()) out.csv = std::fopen(csv.c_str(), "a");
    std::printf("peer_bench: %s (%s), %d processes, process 0 -> process 1\n", Backend::name(), out.where.c_str(),
                b.nproc());
    if (!profile.empty()) {
      bad_profile = !run_profile(b, profile, calls);
      if (bad_profile) std::fprintf(stderr, "peer_bench: --profile takes put, get or acc\n");
    } else if (latency) {
      run_latency(b, out);
    } else {
      run(b, out, max);
    }
    if (out.csv) std::fclose(out.csv);
  }
  b.barrier();
  return bad_profile ? 2 : 0;
}

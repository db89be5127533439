// armci_bench: latency and bandwidth of contiguous and strided put/get/acc,
// between two processes of one node (load/store) and of two nodes
// (libfabric), next to a plain memcpy and our own raw libfabric baseline
// measured in the same run.  Run it with armcirun on >= 2 processes; with
// ARMCI_VNODES=2 and 4 processes it measures both kinds of pairs.
//
//   armci_bench [--max BYTES] [--csv FILE] [--no-raw] [--window W] [--sweep] [--sweep-bytes B] [--patches | --no-patches] [--latency] [--max-iters N]
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "armci.h"
#include "message.h"
#include "armci/runtime.hpp"
#include "perf/bench_util.hpp"
#include "perf/raw_ofi.hpp"

using namespace bench;

namespace {

struct Options {
  std::size_t max = 4u << 20;
  std::string csv;
  bool raw = true;
  bool sweep = false;
  bool patches_only = false;
  bool patches = true;        // --no-patches: the full run leaves the 1 MiB patches to --patches launches
  bool latency_only = false;  // --latency: the inter-node rows up to --max, paired with raw; nothing else
  std::size_t sweep_bytes = 64u << 10;
  int window = 8;
};

struct Row {
  std::size_t bytes;
  double put, get, acc, puts, gets, accs;  // seconds per blocking op (inter: put/acc + fence)
  double put_bw, get_bw, acc_bw;           // MB/s, blocking ops back to back
  double putw_bw, getw_bw;                 // MB/s, `window` non-blocking ops in flight
  double memcpy_bw;                        // intra only: memcpy timed alongside put ...
  double memcpy_get_bw;                    // ... and alongside get (the other direction)
  RawResult raw{};                         // inter only
  // Inter only: ours over the raw baseline within one round (put/get
  // latency, put/get window bandwidth); the row keeps their medians, which a
  // machine whose speed drifts between rounds moves less than a ratio of medians.
  double put_r, get_r, pbw_r, gbw_r;
};

std::vector<std::size_t> sizes_up_to(std::size_t max) {
  std::vector<std::size_t> s;
  for (std::size_t b = 8; b <= max; b *= 4) {
    s.push_back(b);
    if (b < (1u << 20) && b * 4 > (1u << 20) && max >= (1u << 20)) s.push_back(1u << 20);
  }
  if (s.back() != max) s.push_back(max);
  return s;
}

// A strided shape of `bytes` payload: rows of up to 256 bytes with a gap of
// the same size after each row on both sides.
struct Shape {
  int count[2];
  int stride[1];
  explicit Shape(std::size_t bytes) {
    int w = static_cast<int>(std::min<std::size_t>(bytes, 256));
    count[0] = w;
    count[1] = static_cast<int>(bytes / static_cast<std::size_t>(w));
    stride[0] = 2 * w;
  }
};

Row measure(int target, std::size_t bytes, const Options& o, char* local, char* remote_base,
            bool remote_node) {
  Row r{};
  r.bytes = bytes;
  const int it = iters_for(bytes, 8u << 20, 3, 2000);
  double one = 1.0;
  char* remote = remote_base;
  auto fence = [&] {
    if (remote_node) ARMCI_Fence(target);
  };
  auto put = [&] { ARMCI_Put(local, remote, static_cast<int>(bytes), target); fence(); };
  auto get = [&] { ARMCI_Get(remote, local, static_cast<int>(bytes), target); };
  if (remote_node) {
    r.put = per_call(put, it);
    r.get = per_call(get, it);
  } else {
    // On the node a put or get is a copy: compare it with the same copy done
    // by hand, between the same buffers, in alternating trials.
    double mc = 0, mcg = 0;
    std::tie(r.put, mc) = per_call_paired(put, [&] { std::memcpy(remote, local, bytes); }, it);
    std::tie(r.get, mcg) = per_call_paired(get, [&] { std::memcpy(local, remote, bytes); }, it);
    r.memcpy_bw = mbps(bytes, mc);
    r.memcpy_get_bw = mbps(bytes, mcg);
  }
  r.acc = per_call([&] { ARMCI_Acc(ARMCI_ACC_DBL, &one, local, remote, static_cast<int>(bytes), target); fence(); }, it);
  Shape s(bytes);
  int* st = s.stride;
  int lv = 1;
  r.puts = per_call([&] { ARMCI_PutS(local, st, remote, st, s.count, lv, target); fence(); }, it);
  r.gets = per_call([&] { ARMCI_GetS(remote, st, local, st, s.count, lv, target); }, it);
  r.accs = per_call([&] { ARMCI_AccS(ARMCI_ACC_DBL, &one, local, st, remote, st, s.count, lv, target); fence(); }, it);
  r.put_bw = mbps(bytes, r.put);
  r.get_bw = mbps(bytes, r.get);
  r.acc_bw = mbps(bytes, r.acc);
  const std::size_t w = static_cast<std::size_t>(o.window);
  // Each operation of the window has its own source and destination, as in
  // the raw baseline (one shared source measured ~15% slower over tcp).
  // Bandwidth trials long enough (~64 MiB each) to average out scheduling.
  const int wit = iters_for(bytes * w, 64u << 20, 3, 1000);
  double pw = per_call([&] {
    for (std::size_t k = 0; k < w; ++k) ARMCI_NbPut(local + k * bytes, remote + k * bytes, static_cast<int>(bytes), target, nullptr);
    ARMCI_WaitAll();
    fence();
  }, wit, 3);
  double gw = per_call([&] {
    for (std::size_t k = 0; k < w; ++k) ARMCI_NbGet(remote + k * bytes, local + k * bytes, static_cast<int>(bytes), target, nullptr);
    ARMCI_WaitAll();
  }, wit, 3);
  r.putw_bw = mbps(bytes * w, pw);
  r.getw_bw = mbps(bytes * w, gw);
  return r;
}

void print_intra_header() {
  std::printf("\nIntra-node (load/store on the node heap), blocking operations\n");
  std::printf("%6s %9s %9s %9s %9s %9s %9s %10s %10s %10s %10s %10s %6s\n", "bytes", "put_us", "get_us",
              "acc_us", "putS_us", "getS_us", "accS_us", "put_MB/s", "get_MB/s", "acc_MB/s",
              "putW_MB/s", "memcpy_MB/s", "put/mc");
}

void print_intra(const Row& r, FILE* csv) {
  {
    std::printf("%6s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %10.0f %10.0f %10.0f %10.0f %10.0f %6.2f\n",
                size_text(r.bytes).c_str(), r.put * 1e6, r.get * 1e6, r.acc * 1e6, r.puts * 1e6,
                r.gets * 1e6, r.accs * 1e6, r.put_bw, r.get_bw, r.acc_bw, r.putw_bw, r.memcpy_bw,
                r.put_bw / r.memcpy_bw);
    if (csv)
      std::fprintf(csv, "intra,%zu,%g,%g,%g,%g,%g,%g,%g,%g,%g,%g,%g,%g,,,,,,,,\n", r.bytes, r.put * 1e6,
                   r.get * 1e6, r.acc * 1e6, r.puts * 1e6, r.gets * 1e6, r.accs * 1e6, r.put_bw,
                   r.get_bw, r.acc_bw, r.putw_bw, r.getw_bw, r.memcpy_bw);
  }
  std::fflush(stdout);
}

void print_inter_header(int window) {
  std::printf("\nInter-node (libfabric), blocking operations; put/acc include ARMCI_Fence; "
              "W = %d non-blocking in flight\n", window);
  std::printf("%6s %9s %9s %9s %9s %9s %9s %9s %9s %10s %10s %10s %10s %6s %6s %6s %6s\n", "bytes",
              "put_us", "get_us", "acc_us", "putS_us", "getS_us", "accS_us", "rawW_us", "rawR_us",
              "putW_MB/s", "getW_MB/s", "rawW_MB/s", "rawR_MB/s", "put/r", "get/r", "pBW/r", "gBW/r");
}

void print_inter(const Row& r, FILE* csv) {
  {
    const RawResult& b = r.raw;
    std::printf("%6s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %10.0f %10.0f %10.0f %10.0f %6.2f %6.2f %6.2f %6.2f\n",
                size_text(r.bytes).c_str(), r.put * 1e6, r.get * 1e6, r.acc * 1e6, r.puts * 1e6,
                r.gets * 1e6, r.accs * 1e6, b.write_rtt_s * 1e6, b.read_rtt_s * 1e6, r.putw_bw,
                r.getw_bw, b.write_bw_mbs, b.read_bw_mbs, r.put_r, r.get_r,
                r.pbw_r, r.gbw_r);
    if (csv)
      std::fprintf(csv, "inter,%zu,%g,%g,%g,%g,%g,%g,%g,%g,%g,%g,%g,,%g,%g,%g,%g,%g,%g,%g,%g\n", r.bytes,
                   r.put * 1e6, r.get * 1e6, r.acc * 1e6, r.puts * 1e6, r.gets * 1e6, r.accs * 1e6,
                   r.put_bw, r.get_bw, r.acc_bw, r.putw_bw, r.getw_bw, b.write_rtt_s * 1e6,
                   b.read_rtt_s * 1e6, b.write_bw_mbs, b.read_bw_mbs, r.put_r, r.get_r, r.pbw_r, r.gbw_r);
  }
  std::fflush(stdout);
}

// Element-wise medians over the rounds (ours and the raw baseline were
// measured alternately, so both see the same disturbances).
template <typename T>
T median_of(const std::vector<T>& v, std::initializer_list<double T::*> fields) {
  T r = v.front();
  for (double T::*f : fields) {
    std::vector<double> x;
    for (const T& q : v) x.push_back(q.*f);
    r.*f = median(x);
  }
  return r;
}

// One round of ours against one of the raw baseline: who goes first
// alternates with the round, so neither side always follows the other's
// traffic.
template <typename Mine, typename Raw>
void in_turn(int round, Mine&& mine, Raw&& baseline) {
  if (round % 2 == 0) {
    mine();
    baseline();
  } else {
    baseline();
    mine();
  }
}

// Ours: process 0 measures while the others wait in the barrier (the
// target yielding to its node's agent).
template <typename Measure>
void our_side(Measure&& measure) {
  if (armci_msg_me() == 0) measure();
  ARMCI_Barrier();
}

// The baseline: its origin (process 0, as every RawSession here is made)
// measures and ends the round while the raw target serves it; then
// everyone meets.
template <typename Measure>
void raw_side(RawSession& raw, Measure&& measure) {
  if (raw.active()) {
    if (armci_msg_me() == 0) {
      measure();
      raw.done();
    } else {
      raw.serve();
    }
  }
  ARMCI_Barrier();
}

Row median_row(const std::vector<Row>& v) {
  return median_of(v, {&Row::put, &Row::get, &Row::acc, &Row::puts, &Row::gets, &Row::accs, &Row::put_bw,
                       &Row::get_bw, &Row::acc_bw, &Row::putw_bw, &Row::getw_bw, &Row::memcpy_bw,
                       &Row::memcpy_get_bw, &Row::put_r, &Row::get_r, &Row::pbw_r, &Row::gbw_r});
}

RawResult median_raw(const std::vector<RawResult>& v) {
  return median_of(v, {&RawResult::write_rtt_s, &RawResult::read_rtt_s, &RawResult::write_bw_mbs,
                       &RawResult::read_bw_mbs});
}

const Row* row_of(const std::vector<Row>& rows, std::size_t bytes) {
  for (const Row& r : rows)
    if (r.bytes == bytes) return &r;
  return nullptr;
}

void verdict(const char* what, bool ok, const char* fmt, double v, double limit, const std::string& note = "") {
  std::printf("target %-44s ", what);
  std::printf(fmt, v, limit);
  std::printf("  %s%s\n", ok ? "MET" : "MISSED", ok || note.empty() ? "" : (" (" + note + ")").c_str());
}

// What the remote-address check (ARMCI_CHECKS) costs: 8-byte put (+ fence
// across nodes) and get with the check on and off, in alternating trials of
// one run.  The bench links the runtime's internals to flip the switch.
void check_cost(const char* where, int target, char* local, char* remote, bool remote_node) {
  armci::Runtime& r = armci::rt();
  const bool saved = r.checks;
  const int it = capped_iters(remote_node ? 2000 : 200000);
  auto put = [&](bool on) {
    r.checks = on;
    ARMCI_Put(local, remote, 8, target);
    if (remote_node) ARMCI_Fence(target);
  };
  auto get = [&](bool on) {
    r.checks = on;
    ARMCI_Get(remote, local, 8, target);
  };
  auto [put_on, put_off] = per_call_paired([&] { put(true); }, [&] { put(false); }, it);
  auto [get_on, get_off] = per_call_paired([&] { get(true); }, [&] { get(false); }, it);
  r.checks = saved;
  std::printf("address check, %s 8 B: put %.3f us checked, %.3f us unchecked; get %.3f / %.3f us\n", where,
              put_on * 1e6, put_off * 1e6, get_on * 1e6, get_off * 1e6);
  std::printf("RESULT armci_bench check_cost_%s_put %.1f ns\n", where, (put_on - put_off) * 1e9);
  std::printf("RESULT armci_bench check_cost_%s_get %.1f ns\n", where, (get_on - get_off) * 1e9);
  std::printf("RATIO check_%s_put %.3f\n", where, put_on / put_off);
  std::printf("RATIO check_%s_get %.3f\n", where, get_on / get_off);
}

// Strided put/get of a payload (64 KiB unless --sweep-bytes) cut into
// pieces of 8 B .. a quarter of it, blocking (+ fence for put): how piece
// size and total decide between packed active messages, staging and RMA
// iovec batches (run once per ARMCI_OFI_PACK_BELOW / _STAGE_PIECES_BELOW value).
void sweep(int target, char* local, char* remote, std::size_t payload) {
  std::printf("\nStrided sweep to process %d: %zu B payload in pieces, gap = piece size\n", target, payload);
  std::printf("%8s %8s %12s %12s\n", "piece", "pieces", "putS+f_us", "getS_us");
  for (int w = 8; static_cast<std::size_t>(w) <= payload / 4; w *= 2) {
    int count[2] = {w, static_cast<int>(payload / static_cast<std::size_t>(w))}, stride[1] = {2 * w};
    const int it = 40;
    double put = per_call([&] { ARMCI_PutS(local, stride, remote, stride, count, 1, target); ARMCI_Fence(target); }, it, 3);
    double get = per_call([&] { ARMCI_GetS(remote, stride, local, stride, count, 1, target); }, it, 3);
    std::printf("%8d %8d %12.1f %12.1f\n", w, count[1], put * 1e6, get * 1e6);
  }
}

// The 1 MiB patches the targets name, to another node: accumulate against
// put, and 2-D strided patches of 256 B and 1 KiB rows (gap = row) against
// contiguous (and the 256 B rows as one ARMCI_PutV/GetV/AccV vector), each blocking (+ fence where it writes).  Rounds interleave
// the kinds so a noisy moment hits them all; ratios are taken within a
// round and their median reported (7 rounds' medians put the same 256 B
// rows at 0.65x-0.82x of contiguous from run to run on this VM).
void patches(int target, char* local, char* remote) {
  constexpr std::size_t kBytes = 1u << 20;
  const int it = 20, rounds = 15;
  double one = 1.0;
  auto contiguous_put = [&] { ARMCI_Put(local, remote, kBytes, target); ARMCI_Fence(target); };
  auto contiguous_get = [&] { ARMCI_Get(remote, local, kBytes, target); };
  auto acc = [&] { ARMCI_Acc(ARMCI_ACC_DBL, &one, local, remote, kBytes, target); ARMCI_Fence(target); };
  auto rows = [&](int w, bool put) {
    int count[2] = {w, static_cast<int>(kBytes) / w}, stride[1] = {2 * w};
    if (put) {
      ARMCI_PutS(local, stride, remote, stride, count, 1, target);
      ARMCI_Fence(target);
    } else {
      ARMCI_GetS(remote, stride, local, stride, count, 1, target);
    }
  };
  // Vector forms of the 256 B rows: one armci_giov_t of 4096 pieces.
  constexpr int kRows = static_cast<int>(kBytes / 256);
  std::vector<void*> vl(kRows), vr(kRows);
  for (int i = 0; i < kRows; ++i) {
    vl[static_cast<std::size_t>(i)] = local + 512 * i;
    vr[static_cast<std::size_t>(i)] = remote + 512 * i;
  }
  armci_giov_t put_v{vl.data(), vr.data(), kRows, 256}, get_v{vr.data(), vl.data(), kRows, 256};
  // What the rows cost a thread that gathers them into a staging slot
  // before the bytes can leave (the sender of a put, the target's agent of
  // a get): with at most a few iovecs per RMA (tcp: 4) somebody packs, and
  // on a machine without a spare core that thread also does the send.
  std::vector<char> slot(256u << 10);
  auto pack = [&](int w) {
    const std::size_t n = kBytes / static_cast<std::size_t>(w), per = slot.size() / static_cast<std::size_t>(w);
    for (std::size_t r = 0; r < n; ++r)
      std::memcpy(slot.data() + (r % per) * static_cast<std::size_t>(w), local + r * 2 * static_cast<std::size_t>(w),
                  static_cast<std::size_t>(w));
    asm volatile("" ::: "memory");
  };
  enum { Put, Get, Acc, Put256, Get256, Put1K, Get1K, PutV, GetV, AccV, Pack256, Pack1K, Kinds };
  const char* names[Kinds] = {"put", "get", "acc", "putS256", "getS256", "putS1K", "getS1K", "putV256", "getV256", "accV256",
                              "pack256", "pack1K"};
  std::vector<double> t[Kinds];
  for (int r = 0; r < rounds; ++r) {
    t[Put].push_back(per_call(contiguous_put, it, 1));
    t[Get].push_back(per_call(contiguous_get, it, 1));
    t[Acc].push_back(per_call(acc, it, 1));
    t[Put256].push_back(per_call([&] { rows(256, true); }, it, 1));
    t[Get256].push_back(per_call([&] { rows(256, false); }, it, 1));
    t[Put1K].push_back(per_call([&] { rows(1024, true); }, it, 1));
    t[Get1K].push_back(per_call([&] { rows(1024, false); }, it, 1));
    t[PutV].push_back(per_call([&] { ARMCI_PutV(&put_v, 1, target); ARMCI_Fence(target); }, it, 1));
    t[GetV].push_back(per_call([&] { ARMCI_GetV(&get_v, 1, target); }, it, 1));
    t[AccV].push_back(per_call([&] { ARMCI_AccV(ARMCI_ACC_DBL, &one, &put_v, 1, target); ARMCI_Fence(target); }, it, 1));
    t[Pack256].push_back(per_call([&] { pack(256); }, it, 1));
    t[Pack1K].push_back(per_call([&] { pack(1024); }, it, 1));
  }
  double med[Kinds];
  std::printf("\n1 MiB patches to process %d (another node), median of %d rounds\n", target, rounds);
  std::printf("%8s %10s %10s\n", "kind", "us", "MB/s");
  for (int k = 0; k < Kinds; ++k) {
    med[k] = median(t[k]);
    std::printf("%8s %10.1f %10.0f\n", names[k], med[k] * 1e6, kBytes / med[k] / 1e6);
    std::printf("RESULT armci_bench patch_%s_1M %.1f us\n", names[k], med[k] * 1e6);
  }
  // Bandwidth of k over base: the median of the rounds' ratios, as the
  // inter-node rows take theirs against raw.
  auto bw_ratio = [&](int k, int base) {
    std::vector<double> x;
    for (int r = 0; r < rounds; ++r) x.push_back(t[base][static_cast<std::size_t>(r)] / t[k][static_cast<std::size_t>(r)]);
    return median(x);
  };
  std::printf("RATIO patch_acc_over_put_1M %.3f\n", bw_ratio(Acc, Put));
  std::printf("RATIO patch_putS256_over_put_1M %.3f\n", bw_ratio(Put256, Put));
  std::printf("RATIO patch_putS1K_over_put_1M %.3f\n", bw_ratio(Put1K, Put));
  std::printf("RATIO patch_getS256_over_get_1M %.3f\n", bw_ratio(Get256, Get));
  std::printf("RATIO patch_getS1K_over_get_1M %.3f\n", bw_ratio(Get1K, Get));
  std::printf("RATIO patch_putV256_over_put_1M %.3f\n", bw_ratio(PutV, Put));
  std::printf("RATIO patch_getV256_over_get_1M %.3f\n", bw_ratio(GetV, Get));
  std::printf("RATIO patch_accV256_over_acc_1M %.3f\n", bw_ratio(AccV, Acc));
  // The most rows can reach when one thread packs and sends: the
  // contiguous transfer's time plus the packing.
  auto bound = [&](int base, int packing) { return med[base] / (med[base] + med[packing]); };
  std::printf("RATIO patch_rows256_put_bound_1M %.3f\n", bound(Put, Pack256));
  std::printf("RATIO patch_rows1K_put_bound_1M %.3f\n", bound(Put, Pack1K));
  std::printf("RATIO patch_rows256_get_bound_1M %.3f\n", bound(Get, Pack256));
  std::printf("RATIO patch_rows1K_get_bound_1M %.3f\n", bound(Get, Pack1K));
  auto note = [&](int base, int packing, int k) {
    char b[160];
    std::snprintf(b, sizeof b, "packing %.0f us on the sending thread bounds it at %.2fx here; %.2f of that bound",
                  med[packing] * 1e6, bound(base, packing), bw_ratio(k, base) / bound(base, packing));
    return std::string(b);
  };
  // perf/bench_all.sh judges these target lines again on the median over
  // several launches, reading the name and the limit from them.
  verdict("inter-node 1M acc vs put bandwidth", bw_ratio(Acc, Put) >= 0.5, "%.2fx put (>= %.1fx)", bw_ratio(Acc, Put), 0.5);
  verdict("inter-node 1M put, 256 B rows vs contiguous", bw_ratio(Put256, Put) >= 0.7, "%.2fx (>= %.1fx)",
          bw_ratio(Put256, Put), 0.7, note(Put, Pack256, Put256));
  verdict("inter-node 1M put, 1 KiB rows vs contiguous", bw_ratio(Put1K, Put) >= 0.7, "%.2fx (>= %.1fx)",
          bw_ratio(Put1K, Put), 0.7, note(Put, Pack1K, Put1K));
  verdict("inter-node 1M get, 256 B rows vs contiguous", bw_ratio(Get256, Get) >= 0.7, "%.2fx (>= %.1fx)",
          bw_ratio(Get256, Get), 0.7, note(Get, Pack256, Get256));
  verdict("inter-node 1M get, 1 KiB rows vs contiguous", bw_ratio(Get1K, Get) >= 0.7, "%.2fx (>= %.1fx)",
          bw_ratio(Get1K, Get), 0.7, note(Get, Pack1K, Get1K));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--max" && i + 1 < argc) o.max = std::strtoul(argv[++i], nullptr, 0);
    else if (a == "--csv" && i + 1 < argc) o.csv = argv[++i];
    else if (a == "--no-raw") o.raw = false;
    else if (a == "--window" && i + 1 < argc) o.window = std::max(1, std::atoi(argv[++i]));
    else if (a == "--sweep") o.sweep = true;
    else if (a == "--patches") o.patches_only = true;
    else if (a == "--no-patches") o.patches = false;
    else if (a == "--latency") o.latency_only = true;
    else if (a == "--sweep-bytes" && i + 1 < argc) o.sweep_bytes = std::max<std::size_t>(64, std::strtoul(argv[++i], nullptr, 0));
    else if (a == "--max-iters" && i + 1 < argc) iters_ceiling() = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: armci_bench [--max BYTES] [--csv FILE] [--no-raw] [--window W] [--sweep] [--sweep-bytes B] [--patches | --no-patches] [--latency] [--max-iters N]\n");
      return 2;
    }
  }
  ARMCI_Init();
  const int me = armci_msg_me(), n = armci_msg_nproc();
  const std::vector<std::size_t> sizes = sizes_up_to(o.max);
  const std::size_t region = std::max(o.max * static_cast<std::size_t>(std::max(o.window, 2)), 2 * o.sweep_bytes) + 4096;
  std::vector<void*> ptrs(static_cast<std::size_t>(n));
  if (ARMCI_Malloc(ptrs.data(), static_cast<armci_size_t>(region)) != 0) ARMCI_Error("armci_bench: ARMCI_Malloc failed", 1);
  std::vector<char> local(region);
  std::memset(local.data(), 0, local.size());
  std::memset(ptrs[static_cast<std::size_t>(me)], 0, region);
  // Partners of rank 0: one on its node, one on another node.
  int intra = -1, inter = -1;
  const int node0 = armci_domain_id(ARMCI_DOMAIN_SMP, 0);
  for (int p = 1; p < n; ++p) {
    const bool same = armci_domain_id(ARMCI_DOMAIN_SMP, p) == node0;
    if (same && intra < 0) intra = p;
    if (!same && inter < 0) inter = p;
  }
  FILE* csv = nullptr;
  if (me == 0 && !o.csv.empty()) {
    csv = std::fopen(o.csv.c_str(), "w");
    if (csv) std::fprintf(csv, "kind,bytes,put_us,get_us,acc_us,putS_us,getS_us,accS_us,put_MBs,get_MBs,acc_MBs,putW_MBs,getW_MBs,memcpy_MBs,rawW_us,rawR_us,rawW_MBs,rawR_MBs,put_r,get_r,pBW_r,gBW_r\n");
  }
  if (me == 0) {
    std::printf("armci_bench: %d processes on %d node(s); intra partner %d, inter partner %d\n", n,
                armci_domain_count(ARMCI_DOMAIN_SMP), intra, inter);
  }
  ARMCI_Barrier();
  if (o.sweep || o.patches_only) {
    char* remote = inter > 0 ? static_cast<char*>(ptrs[static_cast<std::size_t>(inter)]) : nullptr;
    if (me == 0 && inter > 0 && o.sweep) sweep(inter, local.data(), remote, o.sweep_bytes);
    if (me == 0 && inter > 0 && o.patches_only && region >= (2u << 20) + 4096) patches(inter, local.data(), remote);
    ARMCI_Barrier();
    ARMCI_Free(ptrs[static_cast<std::size_t>(me)]);
    ARMCI_Finalize();
    return 0;
  }
  std::vector<Row> intra_rows, inter_rows;
  // Inter-node pairs alternate with the raw baseline size by size, round by
  // round; each side reports its median over the rounds.
  RawSession raw(0, inter > 0 && o.raw ? inter : -1, o.max, o.window);
  ARMCI_Barrier();
  if (intra > 0 && !o.latency_only) {
    if (me == 0) {
      print_intra_header();
      for (std::size_t b : sizes) {
        // Copies of 512K and more swing with what else the machine does:
        // repeat them (memcpy is measured in every round) and take medians.
        std::vector<Row> rounds;
        for (int round = 0; round < (b >= (512u << 10) ? 5 : 1); ++round)
          rounds.push_back(measure(intra, b, o, local.data(), static_cast<char*>(ptrs[static_cast<std::size_t>(intra)]), false));
        intra_rows.push_back(median_row(rounds));
        print_intra(intra_rows.back(), csv);
      }
    }
    ARMCI_Barrier();
  }
  if (inter > 0) {
    if (me == 0) print_inter_header(o.window);
    for (std::size_t b : sizes) {
      // Big transfers see the most scheduling noise: more rounds for them.
      // Single bandwidth rounds of 1 MiB on this 2-core VM read 0.69x-1.28x
      // raw (30 rounds, median 0.96-1.00x), so 7 rounds put medians
      // anywhere in 0.80-1.01x from run to run.
      const int rounds = b >= (1u << 20) ? 15 : b >= (512u << 10) ? 7 : b >= (128u << 10) ? 5 : 3;
      std::vector<Row> ours;
      std::vector<RawResult> theirs;
      auto mine = [&] {
        our_side([&] {
          ours.push_back(measure(inter, b, o, local.data(), static_cast<char*>(ptrs[static_cast<std::size_t>(inter)]), true));
        });
      };
      auto baseline = [&] { raw_side(raw, [&] { theirs.push_back(raw.measure(b)); }); };
      // Round -1 of the first size is a warm-up for both sides (connections,
      // first touches) and is not kept.
      for (int round = b == sizes.front() ? -1 : 0; round < rounds; ++round) {
        in_turn(round, mine, baseline);
        if (me == 0 && !theirs.empty()) {
          Row& m = ours.back();
          const RawResult& t = theirs.back();
          // No baseline, no ratio: NaN fails every verdict instead of passing one.
          auto ratio = [](double a, double c) { return c > 0 ? a / c : std::nan(""); };
          m.put_r = ratio(m.put, t.write_rtt_s);
          m.get_r = ratio(m.get, t.read_rtt_s);
          m.pbw_r = ratio(m.putw_bw, t.write_bw_mbs);
          m.gbw_r = ratio(m.getw_bw, t.read_bw_mbs);
        }
        if (round < 0) {
          ours.clear();
          theirs.clear();
        }
      }
      if (me == 0) {
        Row r = median_row(ours);
        if (!theirs.empty()) r.raw = median_raw(theirs);
        inter_rows.push_back(r);
        print_inter(r, csv);
      }
    }
    ARMCI_Barrier();
  }
  // Message rate to the other node: windows of small non-blocking puts
  // (then a fence: delivered) and gets (then a wait), against the same
  // windows of raw writes (delivery-complete) and reads.  Like the rows
  // above, kRateRounds rounds with the side that goes first alternating,
  // ratios taken within a round and their median reported (single rounds
  // of 64 B puts at W=256 read 0.78x-0.97x raw from run to run).
  struct RateVerdict {
    std::string what;
    double ratio;
  };
  std::vector<RateVerdict> rate_verdicts;
  if (inter > 0 && !o.latency_only) {
    constexpr int kRateRounds = 5;
    char* remote = static_cast<char*>(ptrs[static_cast<std::size_t>(inter)]);
    if (me == 0)
      std::printf("\nMessage rate to process %d (another node): us per operation, W in flight, median of %d rounds\n"
                  "%6s %5s %10s %10s %10s %10s %8s %8s\n",
                  inter, kRateRounds, "bytes", "W", "put_us", "rawW_us", "get_us", "rawR_us", "put/raw", "get/raw");
    for (std::size_t b : {std::size_t{8}, std::size_t{64}}) {
      for (int w : {1, 16, 256}) {
        std::vector<double> put, get, raw_w, raw_r, pr, gr;
        auto mine = [&] {
          our_side([&] {
            char* l = local.data();
            auto puts = [&] {
              for (int k = 0; k < w; ++k)
                ARMCI_NbPut(l + (k % 8) * b, remote + (k % 8) * b, static_cast<int>(b), inter, nullptr);
              ARMCI_Fence(inter);
            };
            auto gets = [&] {
              for (int k = 0; k < w; ++k)
                ARMCI_NbGet(remote + (k % 8) * b, l + (k % 8) * b, static_cast<int>(b), inter, nullptr);
              ARMCI_WaitAll();
            };
            const int it = capped_iters(std::max(3, 2000 / w));
            put.push_back(per_call(puts, it, 3) / w);
            get.push_back(per_call(gets, it, 3) / w);
          });
        };
        auto baseline = [&] {
          raw_side(raw, [&] {
            const RawSession::Rate t = raw.rate(b, w);
            raw_w.push_back(t.write_s);
            raw_r.push_back(t.read_s);
          });
        };
        for (int round = 0; round < kRateRounds; ++round) {
          in_turn(round, mine, baseline);
          // Rates: raw time per op over ours (1 = as fast as raw).
          if (me == 0 && !raw_w.empty()) {
            if (raw_w.back() > 0) pr.push_back(raw_w.back() / put.back());
            if (raw_r.back() > 0) gr.push_back(raw_r.back() / get.back());
          }
        }
        if (me == 0) {
          // A baseline that never measured gives NaN, which fails the verdict.
          const double mp = median(put), mg = median(get), mw = median(raw_w), mr = median(raw_r);
          const double rp = pr.empty() ? std::nan("") : median(pr), rg = gr.empty() ? std::nan("") : median(gr);
          std::printf("%6zu %5d %10.2f %10.2f %10.2f %10.2f %8.2f %8.2f\n", b, w, mp * 1e6, mw * 1e6, mg * 1e6, mr * 1e6,
                      rp, rg);
          std::printf("RESULT armci_bench rate_put_%zu_w%d %.3f us\nRESULT armci_bench rate_get_%zu_w%d %.3f us\n", b, w,
                      mp * 1e6, b, w, mg * 1e6);
          if (!pr.empty()) std::printf("RATIO rate_put_%zu_w%d_vs_raw %.3f\n", b, w, rp);
          if (!gr.empty()) std::printf("RATIO rate_get_%zu_w%d_vs_raw %.3f\n", b, w, rg);
          if (w == 256 && raw.active()) {
            const std::string size = std::to_string(b) + " B";
            rate_verdicts.push_back({"inter-node message rate, " + size + " puts, W=256, vs raw", rp});
            rate_verdicts.push_back({"inter-node message rate, " + size + " gets, W=256, vs raw", rg});
          }
        }
      }
    }
    ARMCI_Barrier();
  }
  if (me == 0) {
    std::printf("\n");
    char* tgt_intra = intra > 0 ? static_cast<char*>(ptrs[static_cast<std::size_t>(intra)]) : nullptr;
    char* tgt_inter = inter > 0 ? static_cast<char*>(ptrs[static_cast<std::size_t>(inter)]) : nullptr;
    if (intra > 0 && !o.latency_only) check_cost("intra", intra, local.data(), tgt_intra, false);
    if (inter > 0 && !o.latency_only) check_cost("inter", inter, local.data(), tgt_inter, true);
    if (const Row* r = row_of(intra_rows, 8)) {
      verdict("intra-node 8-byte put", r->put * 1e6 <= 0.15, "%.3f us (<= %.2f us)", r->put * 1e6, 0.15);
      verdict("intra-node 8-byte get", r->get * 1e6 <= 0.15, "%.3f us (<= %.2f us)", r->get * 1e6, 0.15);
    }
    for (std::size_t b : {std::size_t{1} << 20, o.max}) {
      if (const Row* r = row_of(intra_rows, b)) {
        std::string w = "intra-node " + size_text(b) + " put vs memcpy";
        verdict(w.c_str(), r->put_bw >= 0.9 * r->memcpy_bw, "%.2f of memcpy (>= %.2f)", r->put_bw / r->memcpy_bw, 0.9);
        w = "intra-node " + size_text(b) + " get vs memcpy";
        verdict(w.c_str(), r->get_bw >= 0.9 * r->memcpy_get_bw, "%.2f of memcpy (>= %.2f)",
                r->get_bw / r->memcpy_get_bw, 0.9);
      }
    }
    if (const Row* r = row_of(inter_rows, 8); r && r->raw.write_rtt_s > 0) {
      verdict("inter-node 8-byte put+fence vs raw write", r->put_r <= 1.2, "%.2fx raw (<= %.1fx)", r->put_r, 1.2);
      verdict("inter-node 8-byte get vs raw read", r->get_r <= 1.2, "%.2fx raw (<= %.1fx)", r->get_r, 1.2);
    }
    if (const Row* r = row_of(inter_rows, 1u << 20); r && r->raw.write_bw_mbs > 0) {
      verdict("inter-node 1M put bandwidth vs raw", r->pbw_r >= 0.9, "%.2fx raw (>= %.1fx)", r->pbw_r, 0.9);
      verdict("inter-node 1M get bandwidth vs raw", r->gbw_r >= 0.9, "%.2fx raw (>= %.1fx)", r->gbw_r, 0.9);
    }
    for (const RateVerdict& v : rate_verdicts)
      verdict(v.what.c_str(), v.ratio >= 0.8, "%.2fx raw rate (>= %.1fx)", v.ratio, 0.8);
    // Rows with equal gaps span twice the payload on both sides.
    if (inter > 0 && !o.latency_only && o.patches && region >= (2u << 20) + 4096) patches(inter, local.data(), tgt_inter);
    if (csv) std::fclose(csv);
  }
  ARMCI_Barrier();
  ARMCI_Free(ptrs[static_cast<std::size_t>(me)]);
  ARMCI_Finalize();
  return 0;
}

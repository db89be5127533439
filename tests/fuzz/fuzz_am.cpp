// libFuzzer target: the node agent's decoder of incoming active messages
// (transports/ofi/am_check.hpp).  A message it accepts is then executed the
// way the agent would, on a fake heap mapped at a fixed address between two
// inaccessible pages: any byte read or written outside the heap, or outside
// the message, crashes the run.
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "armci/armci.h"
#include "transports/acc_kernels.hpp"
#include "transports/ofi/am_check.hpp"
#include "transports/ofi/batch_wire.hpp"
#include "transports/shm_ops.hpp"
#include "transports/signal.hpp"
#include "transports/strided.hpp"
#include "transports/ticket_lock.hpp"

using namespace armci::transport;
using namespace armci::transport::ofi;

namespace {

constexpr uintptr_t kHeap = 0x7e0000000000;
constexpr std::size_t kHeapBytes = 64 << 10, kPage = 4096;

char* heap() {
  static char* h = [] {
    void* m = mmap(reinterpret_cast<void*>(kHeap - kPage), kHeapBytes + 2 * kPage, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (m == MAP_FAILED || mprotect(reinterpret_cast<void*>(kHeap), kHeapBytes, PROT_READ | PROT_WRITE)) {
      std::perror("fuzz_am: mmap");
      std::abort();
    }
    return reinterpret_cast<char*>(kHeap);
  }();
  return h;
}

// Seeds: one well-formed message of each kind, so the fuzzer starts inside
// the protocol instead of guessing a 64-bit heap address.
void write_seed(const std::string& dir, const char* name, const AmHeader& h, const void* body, std::size_t n) {
  std::string msg(reinterpret_cast<const char*>(&h), sizeof h);
  msg.append(static_cast<const char*>(body), n);
  if (FILE* f = std::fopen((dir + "/seed_" + name).c_str(), "wb")) {
    std::fwrite(msg.data(), 1, msg.size(), f);
    std::fclose(f);
  }
}

void write_seeds(const std::string& dir) {
  AmHeader h{};
  h.origin = 1;
  struct {
    PieceWire p[2];
    double d[6];
  } pieces{{{kHeap + 64, 16}, {kHeap + 512, 32}}, {1, 2, 3, 4, 5, 6}};
  h.op = static_cast<uint16_t>(AmOp::Acc);
  h.type = ARMCI_ACC_DBL;
  h.npieces = 2;
  h.payload = 48;
  const double one = 1;
  std::memcpy(h.scale, &one, sizeof one);
  write_seed(dir, "acc", h, &pieces, sizeof pieces);
  h.op = static_cast<uint16_t>(AmOp::PutPieces);
  write_seed(dir, "put", h, &pieces, sizeof pieces);
  h.op = static_cast<uint16_t>(AmOp::GetPieces);
  h.payload = 0;
  write_seed(dir, "get", h, &pieces, sizeof pieces.p);
  h = AmHeader{};
  h.origin = 2;
  h.op = static_cast<uint16_t>(AmOp::Rmw);
  h.type = ARMCI_FETCH_AND_ADD_LONG;
  h.arg0 = kHeap + 128;
  h.arg1 = 5;
  write_seed(dir, "rmw", h, nullptr, 0);
  h.op = static_cast<uint16_t>(AmOp::Lock);
  h.arg0 = kHeap + 1024;
  write_seed(dir, "lock", h, nullptr, 0);
  h.op = static_cast<uint16_t>(AmOp::Unlock);
  write_seed(dir, "unlock", h, nullptr, 0);
  struct {
    SignalWire w;
    char d[8];
  } sig{{kHeap + 2048, 8, 1, 4, 0, kHeap + 4096, 1, kHeap + 4104, 1, kHeap + 4112}, "payload"};
  h.op = static_cast<uint16_t>(AmOp::Signal);
  write_seed(dir, "signal", h, &sig, sizeof sig);
  h.type = kQuietSignal;
  h.token = kQuietToken;
  write_seed(dir, "quiet_signal", h, &sig, sizeof sig);
  h = AmHeader{};
  h.origin = 1;
  h.op = static_cast<uint16_t>(AmOp::Flush);
  write_seed(dir, "flush", h, nullptr, 0);
  h = AmHeader{};
  h.origin = 3;
  h.op = static_cast<uint16_t>(AmOp::Staged);
  h.arg0 = 64 << 10;
  h.arg1 = 4096;
  write_seed(dir, "staged", h, nullptr, 0);
  h.op = static_cast<uint16_t>(AmOp::StagedGet);
  h.arg1 = 0;
  h.npieces = 2;
  write_seed(dir, "staged_get", h, &pieces, sizeof pieces.p);
  // Two levels of 16-byte rows (2 x 3 of them), pieces 1..4 of the walk.
  struct {
    StridedWire w;
    double d[8];
  } shape{{kHeap + 256, 1, 4, 2, {16, 2, 3}, {32, 128}}, {1, 2, 3, 4, 5, 6, 7, 8}};
  h = AmHeader{};
  h.origin = 2;
  h.op = static_cast<uint16_t>(AmOp::AccStrided);
  h.type = ARMCI_ACC_DBL;
  h.payload = 64;
  std::memcpy(h.scale, &one, sizeof one);
  write_seed(dir, "acc_strided", h, &shape, sizeof shape);
  h.op = static_cast<uint16_t>(AmOp::PutStrided);
  write_seed(dir, "put_strided", h, &shape, sizeof shape);
  h.op = static_cast<uint16_t>(AmOp::StagedGetStrided);
  h.payload = 0;
  h.arg0 = 64 << 10;
  write_seed(dir, "staged_get_strided", h, &shape.w, sizeof shape.w);
  // A batch: a put of 12 bytes (padded to 16), an accumulate of two
  // doubles, a get of 24 bytes.
  struct {
    BatchRecord put;
    char put_data[16];
    BatchRecord acc;
    double scale[2];
    double acc_data[2];
    BatchRecord get;
  } batch{{1, 0, 0, 12, kHeap + 8192}, "twelve bytes",
          {2, 0, ARMCI_ACC_DBL, 16, kHeap + 8256}, {1, 0}, {1, 2},
          {3, 0, 0, 24, kHeap + 8192}};
  h = AmHeader{};
  h.origin = 1;
  h.op = static_cast<uint16_t>(AmOp::Batch);
  h.npieces = 3;
  h.payload = sizeof batch;
  write_seed(dir, "batch", h, &batch, sizeof batch);
  h = AmHeader{};
  h.origin = 3;
  h.op = static_cast<uint16_t>(AmOp::AccOne);
  h.type = ARMCI_ACC_LNG;
  h.arg0 = kHeap + 4096;
  h.payload = 8;
  const long two = 2, three = 3;
  std::memcpy(h.scale, &two, sizeof two);
  write_seed(dir, "acc_one", h, &three, sizeof three);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  heap();
  if (const char* d = std::getenv("FUZZ_SEEDS")) write_seeds(d);
  return 0;
}

namespace {

// Executes msg (size bytes) the way the agent would if am_decode accepts it.
void run(const char* msg, std::size_t size, const AmLimits& lim) {
  AmView m;
  bool origin_ok = false;
  if (am_decode(msg, size, lim, &m, &origin_ok)) return;
  const AmHeader& h = m.h;
  const char* end = msg + size;
  switch (static_cast<AmOp>(h.op)) {
    case AmOp::Acc:
    case AmOp::PutPieces:
    case AmOp::GetPieces: {
      static char out[kAmMax];
      std::size_t out_len = 0;
      const char* d = m.data;
      for (uint32_t i = 0; i < h.npieces; ++i) {
        const PieceWire p = m.piece(i);
        char* a = reinterpret_cast<char*>(p.addr);
        if (h.op == static_cast<uint16_t>(AmOp::GetPieces)) {
          if (out_len + p.len > sizeof out - sizeof(ReplyHeader)) std::abort();
          std::memcpy(out + out_len, a, p.len);
          out_len += p.len;
          continue;
        }
        if (d + p.len > end) std::abort();  // the decoder let data run past the message
        if (h.op == static_cast<uint16_t>(AmOp::Acc)) {
          acc_apply(h.type, h.scale, d, a, p.len);  // arbitrary bytes: NaNs and wrapping are fine
        } else {
          std::memcpy(a, d, p.len);
        }
        d += p.len;
      }
      break;
    }
    case AmOp::Rmw:
      if (h.type == ARMCI_FETCH_AND_ADD || h.type == ARMCI_SWAP)
        (void)shm::rmw_value<int>(h.type, reinterpret_cast<int*>(h.arg0), static_cast<int>(h.arg1));
      else
        (void)shm::rmw_value<long>(h.type, reinterpret_cast<long*>(h.arg0), static_cast<long>(h.arg1));
      break;
    case AmOp::Signal: {
      if (m.signal_data + m.signal.len > end) std::abort();
      apply_signal(m.to_signal());
      break;
    }
    case AmOp::Lock:
    case AmOp::TryLock:
    case AmOp::Unlock: {
      auto* l = reinterpret_cast<TicketLock*>(h.arg0);
      (void)ticket_try(*l);
      l->remote_waiters.load();
      break;
    }
    case AmOp::Staged:
      if (h.arg1 > lim.stage_slot || h.arg0 + h.arg1 > lim.stage_slot * lim.stage_slots) std::abort();
      break;
    case AmOp::StagedGet: {  // gathered into the sender's slot, as the agent does
      static std::vector<char> run(lim.stage_slot * lim.stage_slots);
      std::size_t at = h.arg0;
      for (uint32_t i = 0; i < h.npieces; ++i) {
        const PieceWire p = m.piece(i);
        if (at + p.len > h.arg0 + lim.stage_slot || at + p.len > run.size()) std::abort();
        std::memcpy(run.data() + at, reinterpret_cast<const void*>(p.addr), p.len);
        at += p.len;
      }
      break;
    }
    case AmOp::AccStrided:
    case AmOp::PutStrided: {
      const StridedWire& w = m.strided;
      const auto len = static_cast<std::size_t>(w.count[0]);
      const char* d = m.data;
      std::size_t bytes = 0;
      // The decoder must not let the data run past the message.
      if (__builtin_mul_overflow(static_cast<std::size_t>(w.pieces), len, &bytes) ||
          bytes > static_cast<std::size_t>(end - d))
        std::abort();
      if (h.op == static_cast<uint16_t>(AmOp::PutStrided)) {  // the agent's own unpack loop
        scatter_side(static_cast<int>(w.levels), w.count, w.stride, w.first, w.pieces,
                     reinterpret_cast<char*>(w.base), d, len);
        break;
      }
      walk_side(static_cast<int>(w.levels), w.count, w.stride, w.first, w.pieces, [&](long off) {
        acc_apply(h.type, h.scale, d, reinterpret_cast<char*>(w.base + static_cast<uint64_t>(off)), len);
        d += len;
      });
      break;
    }
    case AmOp::StagedGetStrided: {  // gathered into the sender's slot, as the agent does
      static std::vector<char> run(lim.stage_slot * lim.stage_slots);
      const StridedWire& w = m.strided;
      const auto len = static_cast<std::size_t>(w.count[0]);
      const std::size_t at = h.arg0;
      std::size_t bytes = 0;
      if (__builtin_mul_overflow(static_cast<std::size_t>(w.pieces), len, &bytes) ||
          bytes > lim.stage_slot || at > run.size() || bytes > run.size() - at)
        std::abort();
      gather_side(static_cast<int>(w.levels), w.count, w.stride, w.first, w.pieces,
                  reinterpret_cast<const char*>(w.base), run.data() + at, len);
      break;
    }
    case AmOp::Batch: {  // the agent's loop over the records
      static char out[kAmMax];
      std::size_t out_len = 0;
      for_each_record(m.data, h.npieces, [&](const BatchItem& b) {
        char* a = reinterpret_cast<char*>(b.addr);
        if (b.kind == BatchKind::Get) {
          if (out_len + b.len > kBatchReplyRoom) std::abort();
          std::memcpy(out + out_len, a, b.len);
          out_len += b.len;
          return;
        }
        if (b.data + b.len > end || (b.scale && b.scale + kBatchScale > end)) std::abort();
        if (b.kind == BatchKind::Acc) acc_apply(b.type, b.scale, b.data, a, b.len);
        else std::memcpy(a, b.data, b.len);
      });
      break;
    }
    case AmOp::AccOne:
      if (m.data + h.payload > end) std::abort();
      acc_apply(h.type, h.scale, m.data, reinterpret_cast<char*>(h.arg0), h.payload);
      break;
    default: break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  char* base = heap();
  AmLimits lim{kHeap, kHeapBytes, 8};
  lim.stage_slot = 64 << 10;  // the agent's staging slots: notices must land inside them
  lim.stage_slots = kStageSlots;
  const char* msg = reinterpret_cast<const char*>(data);
  run(msg, size, lim);
  // The same bytes as a message found in a staging slot: a write that
  // carried its own notice is as long as its header says (staged_length),
  // up to a slot.
  if (size >= sizeof(AmHeader)) {
    AmHeader h;
    std::memcpy(&h, msg, sizeof h);
    const uint64_t len = staged_length(h);
    AmLimits slot = lim;
    slot.max_len = lim.stage_slot;
    if (len <= size) run(msg, static_cast<std::size_t>(len), slot);
  }
  // Keep the heap from filling with state that only makes later inputs slower.
  if (base[0] == 0x5a) std::memset(base, 0, 64);
  return 0;
}

// ARMCI_PROFILE: calls and bytes of every data operation, split by where the
// target lives (this node: shared memory; another node: libfabric), so a run
// shows how much of its traffic the node heap absorbed.  Counted at the API,
// once per call, before routing; off, it costs one predictable branch.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace armci {

class Runtime;

enum class ProfOp : int { Put, Get, Acc, PutS, GetS, AccS, PutV, GetV, AccV, Rmw, Count };

class Profile {
 public:
  static constexpr int kOps = static_cast<int>(ProfOp::Count);
  // Per process: [op][local 0 / remote 1][calls 0 / bytes 1].
  static constexpr int kWords = kOps * 4;

  bool on = false;

  void record(ProfOp op, bool remote, uint64_t bytes) {
    Cell& c = cells_[static_cast<int>(op)][remote];
    c.calls.fetch_add(1, std::memory_order_relaxed);
    c.bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  std::vector<uint64_t> words() const;

  // The report of every process's words (nprocs * kWords, process-major);
  // node_of[p] is process p's node.
  static std::string table(const std::vector<uint64_t>& all, const std::vector<int>& node_of);

 private:
  // Exact under concurrent callers (unlike the statistics Counter): the
  // profile is opt-in, so it may pay for a locked add.
  struct Cell {
    std::atomic<uint64_t> calls{0}, bytes{0};
  };
  Cell cells_[kOps][2];
};

// At ARMCI_Finalize (collective): process 0 writes the table to stderr, or
// to the file ARMCI_PROFILE names.
void report_profile(Runtime& r);

}  // namespace armci

// The initiator's side of staging (initiator_stage.cpp): when a transfer
// goes through the agents' slots, and the local slots staged messages are
// built in before the RMA write that carries them (kStageLocal slots of
// OfiContext::stage_slot bytes, made at first use).
#pragma once
#include <rdma/fabric.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace armci::transport {

// The slots one node's agent lent me (StageQuery's reply): a bit per slot
// free to fill, the slots' NIC address and key, and their stride.
struct StageLease {
  enum State : int8_t { kUnasked = 0, kLent = 1, kNone = -1 };
  State state = kUnasked;
  uint32_t free = 0;    // bit per slot
  uint32_t writes = 0;  // writes into the slots not yet delivered
  uint64_t addr = 0, key = 0;
  std::size_t slot = 0;  // bytes per slot (the agent's stride)
  bool has_free() const { return free != 0; }
  int take() {  // the lowest free slot; has_free() must hold
    const int i = __builtin_ctz(free);
    free &= ~(1u << i);
    return i;
  }
  void give_back(int i) { free |= 1u << i; }
  uint64_t offset(int i) const { return static_cast<uint64_t>(i) * slot; }  // in the agent's slot area
  uint64_t remote(int i) const { return addr + offset(i); }
  // What one staged chunk may hold, with local slots of `own` bytes.
  std::size_t chunk(std::size_t own) const { return std::min(slot, own); }
};

struct Staging {
  std::size_t from = 0;          // ARMCI_OFI_STAGE_FROM (0: never)
  std::size_t pieces_below = 0;  // ARMCI_OFI_STAGE_PIECES_BELOW
  bool cq_data = false;          // staged writes carry their notice (ARMCI_OFI_STAGE_CQ_DATA and the provider)
  bool push = false;             // staged gets are written back (ofi::kStagePush; ARMCI_OFI_STAGE_CQ_DATA)
  std::vector<char> local;
  fid_mr* local_mr = nullptr;
  std::vector<int> local_free;
  std::vector<uint32_t> local_gen;  // writes from each local slot completed so far
};

}  // namespace armci::transport

// The initiator's side of staging (initiator_stage.cpp): when a transfer
// goes through the agents' slots, and the local slots staged messages are
// built in before the RMA write that carries them (kStageLocal slots of
// OfiContext::stage_slot bytes, made at first use).
#pragma once
#include <rdma/fabric.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace armci::transport {

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

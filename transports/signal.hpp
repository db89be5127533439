// A "signal" writes a small payload into a process's memory and then tells it
// so: store or add to a flag word, set a bit in a pending mask, ring its
// doorbell (futex wake).  On one node it is a few stores; across nodes it is
// one active message that the target node's agent applies in the same order.
// Message passing, notify and Put_flag are built on it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace armci::transport {

enum class FlagOp : uint32_t { None = 0, Store = 1, Add = 2 };

struct Signal {
  uintptr_t data_dst = 0;  // payload destination (0: none)
  const void* data = nullptr;
  uint32_t len = 0;
  FlagOp flag_op = FlagOp::None;
  uint32_t flag_size = 4;  // 4 or 8 bytes
  uintptr_t flag = 0;
  uint64_t flag_val = 0;
  bool wake_flag = false;  // futex-wake sleepers on the (32-bit) flag
  uintptr_t bits = 0;      // 64-bit word to OR bit_mask into (0: none)
  uint64_t bit_mask = 0;
  uintptr_t bell = 0;      // a Doorbell to ring (0: none)
  // Whether ARMCI_Fence must wait for it: a Put_flag's flag is part of a put;
  // a message piece or a notice is awaited by its receiver, who needs no
  // fence from the sender (and a barrier then leaves nothing to flush).
  bool fenced = false;
};

// Applies a signal to memory mapped in this process (same node).
void apply_signal(const Signal& s);

}  // namespace armci::transport

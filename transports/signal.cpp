#include "transports/signal.hpp"

#include <atomic>
#include <cstring>

#include "common/shared_sync.hpp"

namespace armci::transport {

void apply_signal(const Signal& s) {
  if (s.data_dst && s.len) std::memcpy(reinterpret_cast<void*>(s.data_dst), s.data, s.len);
  if (s.flag_op != FlagOp::None) {
    if (s.flag_size == 8) {
      auto* f = reinterpret_cast<std::atomic<uint64_t>*>(s.flag);
      if (s.flag_op == FlagOp::Store) f->store(s.flag_val, std::memory_order_release);
      else f->fetch_add(s.flag_val, std::memory_order_acq_rel);
    } else {
      auto* f = reinterpret_cast<std::atomic<uint32_t>*>(s.flag);
      if (s.flag_op == FlagOp::Store) f->store(static_cast<uint32_t>(s.flag_val), std::memory_order_release);
      else f->fetch_add(static_cast<uint32_t>(s.flag_val), std::memory_order_acq_rel);
      if (s.wake_flag) futex_wake(f);
    }
  }
  if (s.bits) reinterpret_cast<std::atomic<uint64_t>*>(s.bits)->fetch_or(s.bit_mask, std::memory_order_acq_rel);
  if (s.bell) reinterpret_cast<Doorbell*>(s.bell)->ring();
}

}  // namespace armci::transport

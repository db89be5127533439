#include "armci/handles.hpp"

namespace armci {

namespace {
constexpr int kSlotBits = 20;
constexpr uint32_t kSlotMask = (1u << kSlotBits) - 1;
int encode(uint32_t slot, uint32_t gen) {
  return static_cast<int>(((gen & 0x3ff) << kSlotBits) | (slot + 1));
}
}  // namespace

Request* Handles::lookup(armci_hdl_t h) {
  auto g = guard();
  return lookup_unlocked(h);
}

Request* Handles::lookup_unlocked(armci_hdl_t h) {
  if (h <= 0) return nullptr;
  uint32_t slot = (static_cast<uint32_t>(h) & kSlotMask) - 1;
  uint32_t gen = static_cast<uint32_t>(h) >> kSlotBits;
  if (slot >= slots_.size()) return nullptr;
  Request& r = slots_[slot];
  if (!r.in_use || (r.gen & 0x3ff) != gen) return nullptr;
  return &r;
}

Request* Handles::for_handle(armci_hdl_t* h) {
  if (!h) return nullptr;
  auto g = guard();
  if (Request* r = lookup_unlocked(*h)) return r;  // aggregate onto a pending handle
  uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Request& r = slots_[slot];
  r.in_use = true;
  r.aggregate = false;
  r.pending = 0;
  ++r.gen;
  *h = encode(slot, r.gen);
  return &r;
}

void Handles::release(armci_hdl_t* h) {
  auto g = guard();
  const armci_hdl_t id = *h;
  Request* r = lookup_unlocked(id);
  *h = 0;
  if (!r) return;
  r->in_use = false;
  free_.push_back((static_cast<uint32_t>(id) & kSlotMask) - 1);
}

}  // namespace armci

#include "transports/ofi/coalescer.hpp"

#include <cstring>

namespace armci::transport {

using ofi::BatchKind;
using ofi::BatchRecord;

char* Batch::append(BatchKind kind, uint16_t type, uintptr_t remote, std::size_t len) {
  if (buf_.empty()) {  // both of a node's batches take turns: each warms up once
    buf_.resize(ofi::kBatchRoom);
    gets_.reserve(64);
  }
  BatchRecord r{};
  r.kind = static_cast<uint8_t>(kind);
  r.type = type;
  r.len = static_cast<uint32_t>(len);
  r.addr = remote;
  char* at = buf_.data() + used_;
  std::memcpy(at, &r, sizeof r);
  last_ = used_;
  used_ += ofi::batch_record_bytes(kind, len);
  ++count_;
  return at + sizeof r;
}

// A put that starts where the batch's last record, a put of whole words,
// ends extends that record: the same bytes land in the same order, with
// one header instead of one per put (a loop over consecutive elements
// sends one write).
void Batch::put(uintptr_t remote, const void* src, std::size_t len) {
  if (count_) {
    BatchRecord r;
    std::memcpy(&r, buf_.data() + last_, sizeof r);
    if (r.kind == static_cast<uint8_t>(BatchKind::Put) && r.addr + r.len == remote && r.len % 8 == 0) {
      std::memcpy(buf_.data() + used_, src, len);
      r.len += static_cast<uint32_t>(len);
      std::memcpy(buf_.data() + last_, &r, sizeof r);
      used_ += ofi::batch_pad(len);
      return;
    }
  }
  char* d = append(BatchKind::Put, 0, remote, len);
  std::memcpy(d, src, len);
}

void Batch::acc(int type, const void* scale, std::size_t scale_len, uintptr_t remote, const void* src,
                std::size_t len) {
  char* d = append(BatchKind::Acc, static_cast<uint16_t>(type), remote, len);
  std::memset(d, 0, ofi::kBatchScale);
  std::memcpy(d, scale, scale_len);
  std::memcpy(d + ofi::kBatchScale, src, len);
}

void Batch::get(uintptr_t remote, void* dst, std::size_t len, Request* req) {
  append(BatchKind::Get, 0, remote, len);
  gets_.push_back({dst, len, req});
  get_bytes_ += len;
}

BatchRecord Batch::first() const {
  BatchRecord r;
  std::memcpy(&r, buf_.data(), sizeof r);
  return r;
}

void Batch::clear() {
  used_ = 0;
  count_ = 0;
  gets_.clear();
  get_bytes_ = 0;
  staged_.clear();
  staged_bytes_ = 0;
}

Coalescer::Coalescer(const CoalesceConfig& cfg, int nodes) : cfg_(cfg), nodes_(static_cast<std::size_t>(nodes)) {}


int64_t Coalescer::oldest_open() const {
  int64_t oldest = 0;
  for (const PerNode& n : nodes_)
    if (const int64_t t = n.since.load(std::memory_order_relaxed); t && (!oldest || t < oldest)) oldest = t;
  return oldest;
}

}  // namespace armci::transport

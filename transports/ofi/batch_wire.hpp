// Wire format of a Batch active message: small puts, accumulates and gets of
// one process to one node, coalesced (transports/ofi/coalescer.hpp) and
// applied by the node's agent in the order they were issued.  After the
// AmHeader (npieces = records, payload = bytes of records) come the records,
// each a BatchRecord, then for an accumulate its scale, then for a put or an
// accumulate its data, padded so the next record starts 8-byte aligned
// (accumulate kernels read their operands in place).  The reply carries the
// gets' data, in record order, after its ReplyHeader.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "transports/ofi/am_protocol.hpp"

namespace armci::transport::ofi {

enum class BatchKind : uint8_t { Put = 1, Acc = 2, Get = 3 };

struct BatchRecord {
  uint8_t kind;   // BatchKind
  uint8_t pad;
  uint16_t type;  // Acc: ARMCI_ACC_*
  uint32_t len;   // bytes at addr
  uint64_t addr;  // in the target node's heap
};
static_assert(sizeof(BatchRecord) == 16);

inline constexpr std::size_t kBatchScale = sizeof(AmHeader::scale);  // an accumulate's scale, always whole

inline constexpr std::size_t batch_pad(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

// Bytes one record takes in the message.
inline constexpr std::size_t batch_record_bytes(BatchKind k, std::size_t len) {
  return sizeof(BatchRecord) + (k == BatchKind::Acc ? kBatchScale : 0) + (k == BatchKind::Get ? 0 : batch_pad(len));
}

// Records one message holds at most and the get bytes one reply carries.
inline constexpr std::size_t kBatchRoom = kAmMax - sizeof(AmHeader);
inline constexpr std::size_t kBatchReplyRoom = kReplyData;

// One decoded record: for Acc, scale then data; for Put, data; for Get,
// neither.
struct BatchItem {
  BatchKind kind;
  int type;
  std::size_t len;
  uint64_t addr;
  const char* scale;
  const char* data;
};

// Calls f(item) for each of the n records from `records` on, in order.
// Only for records am_decode accepted (it checked every length).
template <typename F>
void for_each_record(const char* records, uint32_t n, F&& f) {
  for (uint32_t i = 0; i < n; ++i) {
    BatchRecord r;
    std::memcpy(&r, records, sizeof r);
    const auto kind = static_cast<BatchKind>(r.kind);
    const char* body = records + sizeof r;
    const bool acc = kind == BatchKind::Acc;
    f(BatchItem{kind, r.type, r.len, r.addr, acc ? body : nullptr, acc ? body + kBatchScale : body});
    records += batch_record_bytes(kind, r.len);
  }
}

}  // namespace armci::transport::ofi

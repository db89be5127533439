// One piece of a vector or strided transfer: a local pointer, a remote
// address and a length.  What both transports take for PutV/GetV/AccV.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

namespace armci::transport {

struct Piece {
  const void* local;
  uintptr_t remote;
  std::size_t bytes;
};
// What the transports take: a view, so a caller may pass one piece on its
// stack or a buffer it reuses, and no operation needs the heap.
using Pieces = std::span<const Piece>;

}  // namespace armci::transport

// One piece of a vector or strided transfer: a local pointer, a remote
// address and a length.  What both transports take for PutV/GetV/AccV.
#pragma once
#include <cstddef>
#include <cstdint>

namespace armci::transport {

struct Piece {
  const void* local;
  uintptr_t remote;
  std::size_t bytes;
};

}  // namespace armci::transport

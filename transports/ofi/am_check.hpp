// The node agent's view of an incoming active message: nothing in it is
// trusted.  am_decode checks every field against the protocol (kind, sizes,
// the piece table and payload adding up to exactly the bytes received) and
// every address against this node's heap before the agent touches memory;
// the handlers then work only from the decoded view.  Pure (no runtime), so
// a fuzzer drives it directly (tests/fuzz/).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "transports/ofi/am_protocol.hpp"
#include "transports/signal.hpp"

namespace armci::transport::ofi {

struct AmLimits {
  uintptr_t heap_lo = 0;      // the node heap's reserved range
  std::size_t heap_bytes = 0;  // bytes mapped so far
  uint32_t nprocs = 0;         // origins must be world ranks
  std::size_t max_len = kAmMax;  // longest message (a staging slot's size for staged ones)
  std::size_t stage_slot = 0;    // staging: bytes per slot (0: the agent has no staging)
  uint32_t stage_slots = 0;      // slots per origin
  bool push = false;             // staged gets may ask to be written back (kStagePush)
};

struct AmView {
  AmHeader h{};
  const char* table = nullptr;        // h.npieces PieceWire entries
  const char* data = nullptr;         // Acc/PutPieces(/Strided): the pieces' bytes, in order
  StridedWire strided{};              // AccStrided/PutStrided/StagedGetStrided: the pieces' shape
  SignalWire signal{};
  const char* signal_data = nullptr;  // Signal: signal.len bytes

  Signal to_signal() const;  // a decoded Signal message, ready for apply_signal

  PieceWire piece(uint32_t i) const {
    PieceWire p;
    std::memcpy(&p, table + i * sizeof p, sizeof p);
    return p;
  }
};

// nullptr if the message may be executed (and *out filled), else why not.
// `origin_ok` tells whether h.origin is a rank a refusal can be sent to.
const char* am_decode(const char* buf, std::size_t len, const AmLimits& lim, AmView* out, bool* origin_ok);

// Bytes of the message whose header is h: header, table or shape, payload
// (what a staged write's notice would have said); unchecked.
uint64_t staged_length(const AmHeader& h);

inline bool am_in_heap(const AmLimits& lim, uint64_t a, uint64_t len) {
  return a >= lim.heap_lo && a - lim.heap_lo <= lim.heap_bytes && len <= lim.heap_bytes - (a - lim.heap_lo);
}

}  // namespace armci::transport::ofi

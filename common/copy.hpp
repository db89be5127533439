// Byte copies between buffers of processes of one node (intra-node put/get
// and vector pieces).  glibc copies blocks above its rep-movsb threshold
// (about 2 KiB) with `rep movsb`, which on some x86 cores runs an order of
// magnitude slower when the destination lies 1-63 bytes past the source
// modulo 4 KiB.  Buffers of two processes meet at such offsets by chance (a
// large malloc'd buffer starts 16 bytes into its page), so those copies go
// through a plain loop of 64-byte moves.  Only up to 512 KiB: above that the
// loop loses to memcpy.  perf/armci_bench's intra-node get rows show both.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace armci {

inline void copy_bytes(void* dst, const void* src, std::size_t n) {
  // glibc's threshold is 2048-8192 bytes by vector width (2112 here); below it, memcpy.
  constexpr std::size_t kFrom = 2048, kUpTo = std::size_t{512} << 10;  // slow range seen: 2 KiB..256 KiB
  const auto distance = (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src)) & 4095;
  if (__builtin_expect(n < kFrom || n > kUpTo || distance == 0 || distance >= 64, 1)) {
    std::memcpy(dst, src, n);
    return;
  }
  if (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src) < n) {
    std::memmove(dst, src, n);  // overlapping, dst after src: a forward loop would reread its own output
    return;
  }
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) __builtin_memcpy(d + i, s + i, 64);
  std::memcpy(d + i, s + i, n - i);
}

}  // namespace armci

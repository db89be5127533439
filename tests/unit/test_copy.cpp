#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "common/copy.hpp"

// copy_bytes takes another path for page-offset distances 1-63 between 2 KiB
// and 512 KiB: every size and distance around those edges must copy exactly
// the bytes asked for and nothing past them.
TEST(CopyBytes, EqualsMemcpyAtEveryEdge) {
  const std::size_t sizes[] = {0, 1, 63, 64, 65, 2047, 2048, 2049, 4096 + 17, 65536 - 3, 512u << 10, (512u << 10) + 1, 1u << 20};
  const std::size_t distances[] = {0, 1, 8, 16, 31, 63, 64, 65, 2048, 4095};
  std::vector<unsigned char> src((1u << 20) + 8192), dst((1u << 20) + 16384);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
  const uintptr_t s0 = reinterpret_cast<uintptr_t>(src.data());
  for (std::size_t n : sizes)
    for (std::size_t d : distances) {
      // Place dst so that (dst - src) mod 4096 == d.
      const uintptr_t base = reinterpret_cast<uintptr_t>(dst.data()) + 4096;
      const std::size_t off = ((s0 + d) - base) & 4095;
      unsigned char* to = dst.data() + 4096 + off;
      std::memset(dst.data(), 0xEE, dst.size());
      armci::copy_bytes(to, src.data(), n);
      ASSERT_EQ(std::memcmp(to, src.data(), n), 0) << "n=" << n << " distance=" << d;
      ASSERT_EQ(to[n], 0xEE) << "wrote past the end: n=" << n << " distance=" << d;
      ASSERT_EQ(to[-1], 0xEE) << "wrote before the start: n=" << n << " distance=" << d;
    }
}

// A copy onto itself shifted by a few bytes (ARMCI_Get of a process's own
// block into itself) behaves as memmove, as glibc's memcpy does on x86-64.
TEST(CopyBytes, OverlappingShiftIsMemmove) {
  for (std::size_t shift : {1, 16, 63}) {
    std::vector<unsigned char> a(16384), b;
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<unsigned char>(i * 13 + 1);
    b = a;
    armci::copy_bytes(a.data() + shift, a.data(), 8192);
    std::memmove(b.data() + shift, b.data(), 8192);
    ASSERT_EQ(a, b) << "shift " << shift;
  }
}

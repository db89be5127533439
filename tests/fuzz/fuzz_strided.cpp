// libFuzzer target: strided descriptor validation (armci/strided_check.hpp).
// Whatever it accepts is walked the way the transports walk it; every piece
// must fall inside [0, extent) on both sides (the range ARMCI checks against
// the target's allocation), and destination pieces must not overlap.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "armci/armci.h"
#include "armci/strided_check.hpp"
#include "transports/strided.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  // levels, count[0..8], src_stride[0..7], dst_stride[0..7]
  int v[1 + 9 + 8 + 8] = {};
  std::memcpy(v, data, std::min(size, sizeof v));
  const int levels = v[0] % 10;
  const int* count = v + 1;
  const int* ss = v + 10;
  const int* ds = v + 18;
  char why[256];
  if (armci::strided_problem(levels, count, ss, ds, true, why, sizeof why)) return 0;
  armci::transport::StridedShape s(levels, count, ss, ds);
  if (s.empty()) return 0;
  // Walk only shapes of a size one could move (the check does not bound the
  // total: the allocation check does).
  if (s.bytes() > (std::size_t{1} << 24) || s.chunks() > 4096) return 0;
  const std::size_t se = s.src_extent(), de = s.dst_extent();
  std::vector<std::pair<long, long>> dst;
  armci::transport::for_each_piece(s, [&](long so, long d, std::size_t n) {
    if (so < 0 || d < 0 || static_cast<std::size_t>(so) + n > se || static_cast<std::size_t>(d) + n > de)
      std::abort();
    dst.emplace_back(d, static_cast<long>(n));
  });
  std::sort(dst.begin(), dst.end());
  for (std::size_t i = 1; i < dst.size(); ++i)
    if (dst[i - 1].first + dst[i - 1].second > dst[i].first) std::abort();  // overlapping destination
  return 0;
}

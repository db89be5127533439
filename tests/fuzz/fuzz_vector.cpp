// libFuzzer target: the overlap check of vector put/get destinations
// (armci/overlap.hpp) against the all-pairs answer: it must find a partial
// overlap exactly when one exists, and report duplicates exactly when the
// ranges include the same range twice.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "armci/overlap.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::vector<armci::DstRange> r;
  for (std::size_t i = 0; i + 1 < size && r.size() < 64; i += 2)
    r.push_back({uintptr_t{1} << 40 | data[i], static_cast<std::size_t>(1 + data[i + 1] % 16), r.size()});
  const std::vector<armci::DstRange> orig = r;
  bool partial = false, dup = false;
  for (std::size_t i = 0; i < orig.size(); ++i)
    for (std::size_t j = i + 1; j < orig.size(); ++j) {
      const auto& x = orig[i];
      const auto& y = orig[j];
      if (x.at < y.at + y.len && y.at < x.at + x.len) {
        if (x.at == y.at && x.len == y.len) dup = true;
        else partial = true;
      }
    }
  const armci::OverlapScan s = armci::scan_overlap(r);
  if (s.partial != partial) std::abort();
  if (s.partial) {
    const auto& x = orig[s.a];
    const auto& y = orig[s.b];
    if (!(x.at < y.at + y.len && y.at < x.at + x.len) || (x.at == y.at && x.len == y.len)) std::abort();
  } else if ((s.duplicates > 0) != dup) {
    std::abort();
  }
  return 0;
}

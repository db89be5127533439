// Overlap of destination ranges (the pieces of one vector put or get): one
// sort, then neighbours.  A partial overlap anywhere shows up between some
// two neighbours in address order (the range after an overlapped one starts
// inside it), even when identical duplicates sit between them.  Pure, so a
// fuzzer checks it against the all-pairs answer (tests/fuzz/).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace armci {

struct DstRange {
  uintptr_t at;
  std::size_t len;  // > 0
  std::size_t id;   // the caller's index
};

struct OverlapScan {
  bool partial = false;  // two ranges overlap without being the same range
  std::size_t a = 0, b = 0;  // ids of such a pair (partial), else of the last duplicate pair
  std::size_t duplicates = 0;  // pairs of identical ranges (neighbours in address order)
};

// `r` is sorted in place.
inline OverlapScan scan_overlap(std::vector<DstRange>& r) {
  std::sort(r.begin(), r.end(), [](const DstRange& x, const DstRange& y) {
    return x.at != y.at ? x.at < y.at : x.len < y.len;
  });
  OverlapScan s;
  for (std::size_t i = 1; i < r.size(); ++i) {
    const DstRange& x = r[i - 1];
    const DstRange& y = r[i];
    if (y.at - x.at >= x.len) continue;
    s.a = x.id;
    s.b = y.id;
    if (y.at != x.at || y.len != x.len) {
      s.partial = true;
      return s;
    }
    ++s.duplicates;
  }
  return s;
}

}  // namespace armci

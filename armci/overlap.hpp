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

namespace detail {
// Ranges of one length L whose starts agree modulo L cannot overlap
// partially (two distinct starts lie at least L apart): a scatter of
// elements.  Then only a repeated start matters, which a hash set finds in
// O(n) where a sort costs O(n log n) and dominated a node-local scatter.
// False: no range repeats.  True: one may (a repeat, or the shortcut does not
// apply): the caller sorts.
inline bool has_duplicate_aligned(const std::vector<DstRange>& r) {
  const std::size_t len = r[0].len;
  const uintptr_t rest = r[0].at % len;
  for (const DstRange& x : r)
    if (x.len != len || x.at % len != rest || x.at == 0) return true;
  std::size_t cap = 16;
  while (cap < 2 * r.size()) cap *= 2;
  thread_local std::vector<uintptr_t> table;
  table.assign(cap, 0);
  int shift = 64;
  for (std::size_t c = cap; c > 1; c >>= 1) --shift;
  for (const DstRange& x : r) {
    std::size_t h = static_cast<std::size_t>(((x.at / len) * 0x9E3779B97F4A7C15ull) >> shift);
    for (;; h = (h + 1) & (cap - 1)) {
      if (table[h] == 0) {
        table[h] = x.at;
        break;
      }
      if (table[h] == x.at) return true;
    }
  }
  return false;
}
}  // namespace detail

// `r` is sorted in place, unless it is already in ascending address order
// with gaps (a gather's destinations, rows of a patch): one pass then; or
// when its ranges cannot overlap but by repeating (detail above).
inline OverlapScan scan_overlap(std::vector<DstRange>& r) {
  std::size_t k = 1;
  while (k < r.size() && r[k].at - r[k - 1].at >= r[k - 1].len && r[k].at > r[k - 1].at) ++k;
  if (k >= r.size()) return {};
  if (!detail::has_duplicate_aligned(r)) return {};
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

// Helpers shared by the multi-process conformance tests: neighbours, bounded
// waits, array comparisons that report the first mismatches, and gathers
// built on armci_msg_*gop (so a test needs no extra collectives).
//
// Rule for every test: after a data check, keep going (EXPECT_*, never
// ASSERT_*) when a collective follows, or the ranks would call different
// collectives and hang instead of failing.
#pragma once
#include <sched.h>
#include <time.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "mp_test.hpp"

namespace mp {

inline int right() { return (me() + 1) % nproc(); }
inline int left() { return (me() + nproc() - 1) % nproc(); }

// Polls pred (yielding, then sleeping 50 us) until it holds or `seconds`
// pass; false on timeout, so a lost flag fails the test instead of hanging.
template <typename F>
bool wait_until(F&& pred, double seconds = 60.0) {
  const double end = armci_timer() + seconds;
  for (long spins = 0;; ++spins) {
    if (pred()) return true;
    if (armci_timer() > end) return pred();
    if (spins < 1000) {
      sched_yield();
    } else {
      timespec ts{0, 50000};
      nanosleep(&ts, nullptr);
    }
  }
}

// Reads a word that another process writes into my memory.
template <typename T>
T load_acquire(const T* p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

template <typename T>
std::string show(const T& v) {
  std::ostringstream o;
  if constexpr (std::is_same_v<T, unsigned char> || std::is_same_v<T, char> ||
                std::is_same_v<T, signed char>)
    o << static_cast<int>(v);
  else
    o << v;
  return o.str();
}

// got[i] == want[i] for all i; on failure names the count and the first few
// differing indices with both values.
template <typename T>
::testing::AssertionResult same(const T* got, const T* want, std::size_t n, const char* what = "") {
  std::size_t bad = 0;
  std::ostringstream o;
  for (std::size_t i = 0; i < n; ++i) {
    if (got[i] == want[i]) continue;
    if (bad < 4) o << "\n  [" << i << "] got " << show(got[i]) << ", want " << show(want[i]);
    ++bad;
  }
  if (!bad) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << bad << " of " << n
                                       << " elements differ (rank " << me() << ")" << o.str();
}

template <typename T>
::testing::AssertionResult same(const std::vector<T>& got, const std::vector<T>& want,
                                const char* what = "") {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << what << ": sizes " << got.size() << " vs " << want.size();
  return same(got.data(), want.data(), got.size(), what);
}

// Every rank's value of v, indexed by rank (a sum over zero-filled slots).
inline std::vector<long> allgather(long v) {
  std::vector<long> all(static_cast<std::size_t>(nproc()), 0);
  all[static_cast<std::size_t>(me())] = v;
  armci_msg_lgop(all.data(), nproc(), const_cast<char*>("+"));
  return all;
}

// Every rank's vector (all of length n), concatenated in rank order.
inline std::vector<long> allgather(const std::vector<long>& mine) {
  const std::size_t n = mine.size();
  std::vector<long> all(n * static_cast<std::size_t>(nproc()), 0);
  std::memcpy(all.data() + n * static_cast<std::size_t>(me()), mine.data(), n * sizeof(long));
  if (!all.empty()) armci_msg_lgop(all.data(), static_cast<int>(all.size()), const_cast<char*>("+"));
  return all;
}

// Ranks of my (virtual) node, in rank order, from ARMCI_Same_node.
inline std::vector<int> node_peers() {
  std::vector<int> v;
  for (int p = 0; p < nproc(); ++p)
    if (ARMCI_Same_node(p)) v.push_back(p);
  return v;
}

inline char* op(const char* s) { return const_cast<char*>(s); }

}  // namespace mp

#include "ga/trace.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "message.h"

namespace ga {

namespace {
const char* const kOpNames[] = {"put", "get", "acc"};
}  // namespace

Trace::Trace(std::string prefix, int me, int nprocs)
    : prefix_(std::move(prefix)), me_(me), nprocs_(nprocs), t0_(armci_timer()) {
  log_.reserve(4096);
}

double Trace::now() const { return armci_timer() - t0_; }

int Trace::index_of(const Array& a) {
  // Handles are reused after GA_Destroy: the newest entry of this handle, if
  // it still describes the same array.
  for (std::size_t i = arrays_.size(); i-- > 0;) {
    const Seen& s = arrays_[i];
    if (s.handle != a.handle) continue;
    if (s.name == a.name && s.ndim == a.ndim && std::memcmp(s.dims, a.dims, sizeof s.dims) == 0)
      return static_cast<int>(i);
    break;
  }
  Seen s{a.handle, a.name, a.ndim, {}};
  std::memcpy(s.dims, a.dims, sizeof s.dims);
  arrays_.push_back(std::move(s));
  return static_cast<int>(arrays_.size() - 1);
}

void Trace::record(const Array& a, Op op, const int* lo, const int* hi, double start, double waited) {
  std::lock_guard<std::mutex> g(mu_);
  Access x{index_of(a), static_cast<uint8_t>(op), start, waited, {}, {}};
  for (int d = 0; d < a.ndim; ++d) {
    x.lo[d] = lo[d];
    x.hi[d] = hi[d];
  }
  log_.push_back(x);
}

// Text, one line per record, so that a trace can be read, grepped and
// joined across processes without the tool:
//   array <index> <handle> <ndim> <dims...> <name>
//   <put|get|acc> <array index> <rank> <start_us> <waited_us> <lo...> <hi...>
void Trace::write() const {
  const std::string path = prefix_ + "." + std::to_string(me_);
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "armci-ofi [%d] ARMCI_TRACE: cannot write %s: %s\n", me_, path.c_str(), std::strerror(errno));
    return;
  }
  std::fprintf(f, "# armci-ofi GA access trace, rank %d of %d, %zu accesses\n", me_, nprocs_, log_.size());
  for (std::size_t i = 0; i < arrays_.size(); ++i) {
    const Seen& s = arrays_[i];
    std::fprintf(f, "array %zu %d %d", i, s.handle, s.ndim);
    for (int d = 0; d < s.ndim; ++d) std::fprintf(f, " %d", s.dims[d]);
    std::fprintf(f, " %s\n", s.name.empty() ? "-" : s.name.c_str());
  }
  for (const Access& x : log_) {
    const int nd = arrays_[static_cast<std::size_t>(x.array)].ndim;
    std::fprintf(f, "%s %d %d %.3f %.3f", kOpNames[x.op], x.array, me_, x.start * 1e6, x.waited * 1e6);
    for (int d = 0; d < nd; ++d) std::fprintf(f, " %d", x.lo[d]);
    for (int d = 0; d < nd; ++d) std::fprintf(f, " %d", x.hi[d]);
    std::fprintf(f, "\n");
  }
  const bool bad = std::ferror(f) != 0;
  if (std::fclose(f) != 0 || bad)
    std::fprintf(stderr, "armci-ofi [%d] ARMCI_TRACE: writing %s failed: %s\n", me_, path.c_str(), std::strerror(errno));
}

}  // namespace ga

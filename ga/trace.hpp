// ARMCI_TRACE: a record of every patch access this process makes (NGA_Put/
// Get/Acc in all forms, and the GA layer's own: GA_Dgemm panels, copies,
// merges), written to
// PREFIX.<rank> at GA_Terminate for tools/armci_trace_map, which draws where
// the processes waited on each array.  Kept in memory until then so that
// tracing costs two clock reads and one append per access.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "ga/array.hpp"
#include "ga/patch_io.hpp"

namespace ga {



class Trace {
 public:
  Trace(std::string prefix, int me, int nprocs);
  // An access to `a` of the patch [lo, hi] that started at `start` (s since
  // the trace began) and kept the caller `waited` s.
  void record(const Array& a, Op op, const int* lo, const int* hi, double start, double waited);
  double now() const;
  void write() const;  // PREFIX.<rank>; reports a failure, never stops the program

 private:
  struct Access {
    int array;  // index into arrays_
    uint8_t op;
    double start, waited;
    int lo[kMaxDim], hi[kMaxDim];
  };
  struct Seen {
    int handle;
    std::string name;
    int ndim;
    int dims[kMaxDim];
  };
  int index_of(const Array& a);
  std::string prefix_;
  int me_, nprocs_;
  double t0_;
  std::vector<Seen> arrays_;
  std::vector<Access> log_;
  std::mutex mu_;  // threads of one process may access arrays at once
};

}  // namespace ga

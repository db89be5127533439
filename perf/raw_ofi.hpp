// Our own raw libfabric baseline: the same provider and endpoint set-up as
// armci-ofi, with fi_writemsg/fi_readmsg round trips and windowed bandwidth,
// measured between the same two processes in the same run, interleaved with
// the ARMCI measurements size by size so both see the same machine state.
#pragma once
#include <cstddef>
#include <memory>

namespace bench {

struct RawResult {
  std::size_t bytes = 0;
  double write_rtt_s = 0;   // one write with delivery completion, waited for
  double read_rtt_s = 0;    // one read, waited for
  double write_bw_mbs = 0;  // `window` writes in flight
  double read_bw_mbs = 0;
};

class RawSession {
 public:
  // Collective between origin and target (world ranks); others get an
  // inactive session.
  RawSession(int origin, int target, std::size_t max_bytes, int window);
  ~RawSession();
  // Origin: one measurement (the target serves it from serve()).
  RawResult measure(std::size_t bytes);
  // Origin: seconds per operation with `window` small (<= max_bytes)
  // writes (delivery-complete) or reads in flight, windows up to 256.
  struct Rate {
    double write_s = 0, read_s = 0;
  };
  Rate rate(std::size_t bytes, int window);
  // Target: drive progress for the origin's measurements until it says done.
  void serve();
  // Origin: tell the target to stop serving this round.
  void done();
  bool active() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bench

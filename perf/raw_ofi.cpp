#include "perf/raw_ofi.hpp"

#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "armci.h"
#include "message.h"
#include "perf/bench_util.hpp"
#include "transports/ofi/fabric.hpp"

namespace bench {

namespace {

using armci::transport::ofi::Endpoint;
using armci::transport::ofi::EndpointOptions;

constexpr int kTagAddr = 7101;

void die(const char* what, long rc) {
  std::fprintf(stderr, "raw baseline: %s failed: %s\n", what, fi_strerror(static_cast<int>(-rc)));
  std::exit(1);
}

// Busy completion wait: the baseline is allowed every advantage.
void wait_completions(Endpoint& ep, int n) {
  fi_cq_data_entry e[16];
  while (n > 0) {
    ssize_t r = fi_cq_read(ep.cq, e, 16);
    if (r > 0) n -= static_cast<int>(r);
    else if (r != -FI_EAGAIN) die("fi_cq_read", r);
  }
}

template <typename Post>
void post(Endpoint& ep, Post&& p) {
  for (;;) {
    ssize_t rc = p();
    if (rc == 0) return;
    if (rc != -FI_EAGAIN) die("post", rc);
    fi_cq_data_entry e;
    (void)fi_cq_read(ep.cq, &e, 0);
  }
}

EndpointOptions raw_options() {
  EndpointOptions o;
  if (const char* p = std::getenv("ARMCI_OFI_PROVIDER")) o.provider = p;
  o.role = "raw baseline";
  return o;
}

}  // namespace

struct RawSession::Impl {
  Impl(int origin_, int target_, std::size_t max, int window_)
      : origin(origin_), target(target_), slot(max), window(window_), ep(raw_options()) {}
  int origin, target;
  std::size_t slot;
  int window;
  Endpoint ep;
  std::vector<char> buf;
  fid_mr* mr = nullptr;
  void* desc = nullptr;
  uint64_t raddr = 0, rkey = 0;
  fi_context2 ctx[256];
  // One write (delivery-complete) or read of `bytes` at offset `at` of both
  // buffers, completing on ctx[k].
  void one(bool write, std::size_t at, std::size_t bytes, int k) {
    iovec iov{buf.data() + at, bytes};
    fi_rma_iov rma{raddr + at, bytes, rkey};
    fi_msg_rma msg{};
    msg.msg_iov = &iov;
    msg.desc = &desc;
    msg.iov_count = 1;
    msg.addr = 0;
    msg.rma_iov = &rma;
    msg.rma_iov_count = 1;
    msg.context = &ctx[k];
    const uint64_t wflags = FI_DELIVERY_COMPLETE | FI_COMPLETION | (bytes <= ep.caps.inject ? FI_INJECT : 0);
    if (write) post(ep, [&] { return fi_writemsg(ep.ep, &msg, wflags); });
    else post(ep, [&] { return fi_readmsg(ep.ep, &msg, FI_COMPLETION); });
  }
};

RawSession::RawSession(int origin, int target, std::size_t max_bytes, int window) {
  const int me = armci_msg_me();
  if (target < 0 || (me != origin && me != target)) return;
  impl_ = std::make_unique<Impl>(origin, target, max_bytes, std::min(window, 64));
  Impl& m = *impl_;
  m.buf.resize(m.slot * static_cast<std::size_t>(m.window) + 4096);
  m.mr = m.ep.register_memory(m.buf.data(), m.buf.size(),
                              FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE | FI_SEND | FI_RECV, 77);
  m.desc = fi_mr_desc(m.mr);
  const int peer = me == origin ? target : origin;
  std::string name = m.ep.name();
  char pname[256];
  int plen = 0;
  uint64_t mine[2] = {m.ep.caps.virt_addr ? reinterpret_cast<uint64_t>(m.buf.data()) : 0, fi_mr_key(m.mr)};
  uint64_t theirs[2];
  if (me == origin) {
    armci_msg_snd(kTagAddr, name.data(), static_cast<int>(name.size()), peer);
    armci_msg_rcv(kTagAddr, pname, sizeof pname, &plen, peer);
    armci_msg_rcv(kTagAddr, theirs, sizeof theirs, nullptr, peer);
  } else {
    armci_msg_rcv(kTagAddr, pname, sizeof pname, &plen, peer);
    armci_msg_snd(kTagAddr, name.data(), static_cast<int>(name.size()), peer);
    armci_msg_snd(kTagAddr, mine, sizeof mine, peer);
  }
  m.ep.insert({std::string(pname, static_cast<std::size_t>(plen))}, "baseline peer");
  if (me == origin) {
    m.raddr = theirs[0];
    m.rkey = theirs[1];
  }
}

RawSession::~RawSession() = default;
bool RawSession::active() const { return impl_ != nullptr; }

void RawSession::serve() {
  Impl& m = *impl_;
  fi_context2 ctx{};
  char msg[8];
  post(m.ep, [&] { return fi_recv(m.ep.ep, msg, sizeof msg, m.desc, 0, &ctx); });
  wait_completions(m.ep, 1);  // progress until the origin's "done"
}

void RawSession::done() {
  Impl& m = *impl_;
  fi_context2 ctx{};
  char msg[8] = "done";
  post(m.ep, [&] { return fi_send(m.ep.ep, msg, sizeof msg, m.desc, 0, &ctx); });
  wait_completions(m.ep, 1);
}

RawResult RawSession::measure(std::size_t bytes) {
  Impl& m = *impl_;
  RawResult r;
  r.bytes = bytes;
  auto one = [&](bool write, int k) { m.one(write, static_cast<std::size_t>(k) * m.slot, bytes, k); };
  const int iters = iters_for(bytes, 8u << 20, 3, 2000);
  r.write_rtt_s = per_call([&] { one(true, 0); wait_completions(m.ep, 1); }, iters);
  r.read_rtt_s = per_call([&] { one(false, 0); wait_completions(m.ep, 1); }, iters);
  const int w = m.window;
  const int bw_iters = iters_for(bytes * static_cast<std::size_t>(w), 64u << 20, 3, 1000);
  double ws = per_call([&] { for (int k = 0; k < w; ++k) one(true, k); wait_completions(m.ep, w); }, bw_iters, 3);
  double rs = per_call([&] { for (int k = 0; k < w; ++k) one(false, k); wait_completions(m.ep, w); }, bw_iters, 3);
  r.write_bw_mbs = mbps(bytes * static_cast<std::size_t>(w), ws);
  r.read_bw_mbs = mbps(bytes * static_cast<std::size_t>(w), rs);
  return r;
}

RawSession::Rate RawSession::rate(std::size_t bytes, int window) {
  Impl& m = *impl_;
  const int w = std::min(window, 256);
  auto burst = [&](bool write) {
    // Windows beyond the buffer's slots reuse them: only the rate counts.
    for (int k = 0; k < w; ++k) m.one(write, static_cast<std::size_t>(k % m.window) * m.slot, bytes, k);
    wait_completions(m.ep, w);
  };
  const int iters = capped_iters(std::max(3, 2000 / w));
  Rate r;
  r.write_s = per_call([&] { burst(true); }, iters, 3) / w;
  r.read_s = per_call([&] { burst(false); }, iters, 3) / w;
  return r;
}

}  // namespace bench

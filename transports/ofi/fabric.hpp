// libfabric set-up: choosing a provider, asking for every mr_mode bit we can
// handle, and one RDM endpoint with its completion queue and address vector.
// Everything the data path needs to branch on is decided here once.
#pragma once
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace armci::transport::ofi {

struct Caps {
  std::string provider;  // e.g. "tcp;ofi_rxm"
  std::string fabric;
  std::string domain;
  bool mr_local = false;     // local buffers need descriptors
  bool virt_addr = false;    // remote addresses are virtual addresses (else offsets)
  bool prov_key = false;     // the provider picks keys
  bool mr_endpoint = false;  // registrations bind to an endpoint
  bool atomics = false;      // endpoint opened with FI_ATOMIC
  std::size_t inject = 0;
  std::size_t max_msg = 0;
  std::size_t iov_limit = 1;
  std::size_t rma_iov_limit = 1;
  std::size_t rx_size = 0;
  uint64_t msg_order = 0;
  bool cq_data = false;      // RMA writes can carry 8 bytes of remote CQ data
  bool manual_progress = true;
  bool tagged = false;       // FI_TAGGED: process-to-process messages (initiator_msg.cpp)
  bool has(uint64_t order_bit) const { return (msg_order & order_bit) == order_bit; }
  std::string describe() const;
};

// Whether an RMA write lands in the target's own progress call, in stream
// order with that sender's messages, so a target may poll memory for it
// (polled messages, ofi::kInboxBytes): providers built on tcp, progressed
// by their caller (no provider thread copying meanwhile).
inline bool polled_writes_in_order(const Caps& c) { return c.provider.rfind("tcp", 0) == 0 && c.manual_progress; }

struct EndpointOptions {
  std::string provider;      // ARMCI_OFI_PROVIDER ("" = FI_PROVIDER or the best available)
  bool atomics = false;      // ARMCI_OFI_ATOMICS
  bool force_mr_local = false;
  bool tagged = false;       // ask for FI_TAGGED (initiators: collectives' messages)
  std::string domain;        // this NIC (libfabric domain) only; "" = the provider's first
  const char* role = "initiator";
  std::size_t rxm_rx_buffers = 0;  // ARMCI_OFI_RXM_RX_BUFFERS (0: libfabric's default)
};

// The provider's fi_info list (one entry per domain and fabric) as the
// runtime chooses it: ARMCI_OFI_PROVIDER, else FI_PROVIDER, else the first
// of a preference list.  nullptr with *error set if none fits; *how says
// which rule chose.  The caller frees the list (fi_freeinfo).
fi_info* choose_provider(const EndpointOptions& opt, std::string* how, std::string* error);

// An RDM endpoint with its own fabric, domain, CQ and AV (FI_AV_TABLE: the
// n-th inserted address is fi_addr n).  Single-threaded use.
class Endpoint {
 public:
  explicit Endpoint(const EndpointOptions& opt);
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  std::string name() const;  // fi_getname, binary
  void insert(const std::vector<std::string>& names, const char* what);
  fi_addr_t insert_one(const std::string& name, const char* what);  // at the next free index
  // Registers [addr, addr+len); key 0 lets the provider choose (PROV_KEY) or
  // is replaced by `requested_key`.  Returns the MR.
  fid_mr* register_memory(void* addr, std::size_t len, uint64_t access, uint64_t requested_key);
  // Up to n completions from the CQ: their number, 0 if none; -1 when the
  // next is a failed operation (*err then holds it).  Any other failure of
  // the queue itself ends the job naming `who` and this domain.
  ssize_t read_cq(fi_cq_data_entry* e, std::size_t n, fi_cq_err_entry* err, const char* who);
  // fi_trywait on the CQ: true if it is safe to sleep on wait_fd().
  bool trywait();
  int wait_fd() const { return wait_fd_; }

  fi_info* info = nullptr;
  fid_fabric* fabric = nullptr;
  fid_domain* domain = nullptr;
  fid_av* av = nullptr;
  fid_cq* cq = nullptr;
  fid_ep* ep = nullptr;
  Caps caps;

 private:
  int wait_fd_ = -1;
  std::vector<fid_mr*> mrs_;
};

// One local buffer written to one remote range with explicit flags: the
// shape of staged, polled and answer writes, which differ only in the
// completion they ask for. fi_write cannot take flags, so each of them would
// otherwise build the same fi_msg_rma by hand.
struct OneWrite {
  const void* buf;
  std::size_t len;
  void* desc;         // fi_mr_desc of buf's registration, or nullptr
  fi_addr_t to;
  uint64_t raddr, key;
  void* context;      // the fi_context completions report
  uint64_t data = 0;  // with FI_REMOTE_CQ_DATA
};

inline ssize_t write_one(fid_ep* ep, const OneWrite& w, uint64_t flags) {
  iovec iov{const_cast<void*>(w.buf), w.len};
  void* desc = w.desc;
  fi_rma_iov rio{w.raddr, w.len, w.key};
  fi_msg_rma msg{};
  msg.msg_iov = &iov;
  msg.desc = &desc;
  msg.iov_count = 1;
  msg.addr = w.to;
  msg.rma_iov = &rio;
  msg.rma_iov_count = 1;
  msg.context = w.context;
  msg.data = w.data;
  return fi_writemsg(ep, &msg, flags);
}

// fi_strerror with the call name: "fi_write: Connection refused (-111)".
std::string fi_error(const char* call, long rc);

}  // namespace armci::transport::ofi

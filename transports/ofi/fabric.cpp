#include "transports/ofi/fabric.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/log.hpp"
#include "transports/ofi/am_protocol.hpp"
#include "transports/ofi/ofi.hpp"

namespace armci::transport::ofi {

std::string fi_error(const char* call, long rc) {
  std::ostringstream o;
  o << call << ": " << fi_strerror(static_cast<int>(rc < 0 ? -rc : rc)) << " (" << rc << ")";
  return o.str();
}

namespace {

constexpr uint64_t kWantedOrder = FI_ORDER_RAW | FI_ORDER_WAW | FI_ORDER_SAW | FI_ORDER_SAS |
                                  FI_ORDER_WAS | FI_ORDER_RAS | FI_ORDER_RAR;

// Active messages must stay eager (see am_protocol.hpp).  Only a user who
// lowered rxm's own limits can break that; say so rather than stall later.
void warn_small_rxm_eager_limit() {
  for (const char* v : {"FI_OFI_RXM_EAGER_LIMIT", "FI_OFI_RXM_BUFFER_SIZE"}) {
    const char* e = std::getenv(v);
    if (e && *e && std::strtoull(e, nullptr, 0) < kAmMax)
      warn("ARMCI_Init",
           "%s=%s is below armci-ofi's active-message size (%zu bytes): accumulates and packed "
           "transfers will use rxm's rendezvous and can wait for busy peers",
           v, e, kAmMax);
  }
}

// Preference order when nobody named a provider: RDMA first, then the
// Omni-Path/Ethernet providers, then the portable socket ones.
const char* const kPreferred[] = {"verbs;ofi_rxm", "psm3", "psm2", "tcp;ofi_rxm", "sockets"};

fi_info* make_hints(const EndpointOptions& opt, const char* prov, bool with_order, bool tagged) {
  fi_info* h = fi_allocinfo();
  h->caps = FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_MSG | FI_SEND | FI_RECV;
  if (tagged) h->caps |= FI_TAGGED;
  if (opt.atomics) h->caps |= FI_ATOMIC;
  h->mode = FI_CONTEXT | FI_CONTEXT2;
  h->ep_attr->type = FI_EP_RDM;
  h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                            FI_MR_ENDPOINT;
  h->domain_attr->threading = FI_THREAD_DOMAIN;
  h->domain_attr->av_type = FI_AV_TABLE;
  if (with_order) h->tx_attr->msg_order = h->rx_attr->msg_order = kWantedOrder;
  if (prov && *prov) h->fabric_attr->prov_name = strdup(prov);
  return h;
}

// Tagged messages (process to process, for collectives) where the provider
// has them; ordering bits where it has those.
fi_info* query(const EndpointOptions& opt, const char* prov) {
  for (bool tagged : {opt.tagged, false})
    for (bool order : {true, false}) {
      fi_info* hints = make_hints(opt, prov, order, tagged);
      fi_info* info = nullptr;
      int rc = fi_getinfo(FI_VERSION(1, 9), nullptr, nullptr, 0, hints, &info);
      fi_freeinfo(hints);
      if (rc == 0 && info) return info;
    }
  return nullptr;
}

void check(const char* role, const char* call, int rc) {
  if (rc) fatal("ARMCI_Init", "libfabric %s endpoint: %s", role, fi_error(call, rc).c_str());
}

}  // namespace

}  // namespace armci::transport::ofi


namespace armci::transport::ofi {

std::string Caps::describe() const {
  std::ostringstream o;
  o << "libfabric provider " << provider << " (fabric " << fabric << ", domain " << domain << "): "
    << "inject " << inject << " B, iov " << iov_limit << ", rma_iov " << rma_iov_limit
    << ", mr_mode" << (mr_local ? " LOCAL" : "") << (virt_addr ? " VIRT_ADDR" : " offsets")
    << (prov_key ? " PROV_KEY" : "") << (mr_endpoint ? " ENDPOINT" : "") << ", order"
    << (has(FI_ORDER_RAW) ? " RAW" : "") << (has(FI_ORDER_WAW) ? " WAW" : "")
    << (has(FI_ORDER_SAW) ? " SAW" : "") << (has(FI_ORDER_SAS) ? " SAS" : "")
    << (has(FI_ORDER_WAS) ? " WAS" : "") << ", " << (manual_progress ? "manual" : "auto")
    << " data progress" << (atomics ? ", native atomics requested" : "")
    << (tagged ? ", tagged messages" : "");
  return o.str();
}

namespace {
// rxm reads its parameters once, at the process's first fi_getinfo: this
// must run before it, and has no effect if the application (or its MPI)
// started libfabric earlier.  A user's FI_OFI_RXM_MSG_RX_SIZE wins.
void set_rxm_defaults(const EndpointOptions& opt) {
  if (opt.rxm_rx_buffers == 0 || std::getenv("FI_OFI_RXM_MSG_RX_SIZE")) return;
  const std::string n = std::to_string(opt.rxm_rx_buffers);
  setenv("FI_OFI_RXM_MSG_RX_SIZE", n.c_str(), 0);
}
}  // namespace

fi_info* choose_provider(const EndpointOptions& opt, std::string* how, std::string* error) {
  set_rxm_defaults(opt);
  const char* fi_provider = std::getenv("FI_PROVIDER");
  char msg[256];
  fi_info* info = nullptr;
  if (!opt.provider.empty()) {
    if ((info = query(opt, opt.provider.c_str()))) {
      if (how) *how = "ARMCI_OFI_PROVIDER";
      return info;
    }
    std::snprintf(msg, sizeof msg, "libfabric provider \"%s\" (ARMCI_OFI_PROVIDER) offers no RDM endpoint "
                  "with RMA and messages here; `fi_info -l` lists the providers", opt.provider.c_str());
  } else if (fi_provider && *fi_provider) {
    if ((info = query(opt, nullptr))) {  // libfabric applies FI_PROVIDER itself
      if (how) *how = "FI_PROVIDER";
      return info;
    }
    std::snprintf(msg, sizeof msg, "FI_PROVIDER=%s offers no RDM endpoint with RMA and messages", fi_provider);
  } else {
    for (const char* p : kPreferred)
      if ((info = query(opt, p))) {
        if (how) *how = std::string("the first available of verbs;ofi_rxm, psm3, psm2, tcp;ofi_rxm, sockets");
        return info;
      }
    std::snprintf(msg, sizeof msg, "no libfabric provider offers RDM endpoints with RMA and messages (tried "
                  "verbs;ofi_rxm, psm3, psm2, tcp;ofi_rxm, sockets)");
  }
  if (error) *error = msg;
  return nullptr;
}

Endpoint::Endpoint(const EndpointOptions& opt) {
  std::string why;
  info = choose_provider(opt, nullptr, &why);
  if (!info) fatal("ARMCI_Init", "%s", why.c_str());
  if (!opt.domain.empty()) {  // one NIC of several (a rail): its first entry
    fi_info* i = info;
    while (i && !(i->domain_attr->name && opt.domain == i->domain_attr->name)) i = i->next;
    if (!i) {
      fi_freeinfo(info);
      fatal("ARMCI_Init", "libfabric %s endpoint: no domain \"%s\" offers the provider (ARMCI_NICS; "
            "`armci_info` lists them)", opt.role, opt.domain.c_str());
    }
    fi_info* one = fi_dupinfo(i);
    fi_freeinfo(info);
    info = one;
  }
  caps.provider = info->fabric_attr->prov_name ? info->fabric_attr->prov_name : "?";
  // Once per node (the agent's endpoint), not once per process.
  if (std::strcmp(opt.role, "node agent") == 0 && caps.provider.find("ofi_rxm") != std::string::npos)
    warn_small_rxm_eager_limit();
  caps.fabric = info->fabric_attr->name ? info->fabric_attr->name : "?";
  caps.domain = info->domain_attr->name ? info->domain_attr->name : "?";
  const uint64_t mm = info->domain_attr->mr_mode;
  caps.mr_local = (mm & FI_MR_LOCAL) || opt.force_mr_local;
  caps.virt_addr = mm & FI_MR_VIRT_ADDR;
  caps.prov_key = mm & FI_MR_PROV_KEY;
  caps.mr_endpoint = mm & FI_MR_ENDPOINT;
  caps.atomics = opt.atomics;
  caps.inject = info->tx_attr->inject_size;
  caps.max_msg = info->ep_attr->max_msg_size;
  caps.iov_limit = std::max<std::size_t>(1, info->tx_attr->iov_limit);
  caps.rma_iov_limit = std::max<std::size_t>(1, info->tx_attr->rma_iov_limit);
  caps.rx_size = info->rx_attr->size;
  caps.msg_order = info->tx_attr->msg_order;
  caps.cq_data = info->domain_attr->cq_data_size >= 8;
  caps.manual_progress = info->domain_attr->data_progress == FI_PROGRESS_MANUAL;
  caps.tagged = info->caps & FI_TAGGED;

  check(opt.role, "fi_fabric", fi_fabric(info->fabric_attr, &fabric, nullptr));
  check(opt.role, "fi_domain", fi_domain(fabric, info, &domain, nullptr));
  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  check(opt.role, "fi_av_open", fi_av_open(domain, &av_attr, &av, nullptr));
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_DATA;
  // Only the agent sleeps on its CQ; an initiator polls it, and a wait
  // object would cost a signal write and read per completion.
  // Agents sleep until a message comes; so does a process that waits long
  // for another process's message (OfiImpl::msg_recv).
  const bool sleeps = std::strcmp(opt.role, "node agent") == 0 || std::strcmp(opt.role, "initiator messages") == 0;
  cq_attr.wait_obj = sleeps ? FI_WAIT_FD : FI_WAIT_NONE;
  cq_attr.size = 4096;
  if (fi_cq_open(domain, &cq_attr, &cq, nullptr) != 0) {
    cq_attr.wait_obj = FI_WAIT_NONE;  // the loop then polls
    check(opt.role, "fi_cq_open", fi_cq_open(domain, &cq_attr, &cq, nullptr));
  } else if (!sleeps || fi_control(&cq->fid, FI_GETWAIT, &wait_fd_) != 0) {
    wait_fd_ = -1;
  }
  check(opt.role, "fi_endpoint", fi_endpoint(domain, info, &ep, nullptr));
  check(opt.role, "fi_ep_bind(av)", fi_ep_bind(ep, &av->fid, 0));
  check(opt.role, "fi_ep_bind(cq)", fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
  check(opt.role, "fi_enable", fi_enable(ep));
}

Endpoint::~Endpoint() {
  if (ep) fi_close(&ep->fid);
  for (fid_mr* m : mrs_) fi_close(&m->fid);
  if (av) fi_close(&av->fid);
  if (cq) fi_close(&cq->fid);
  if (domain) fi_close(&domain->fid);
  if (fabric) fi_close(&fabric->fid);
  if (info) fi_freeinfo(info);
}

std::string Endpoint::name() const {
  char buf[256];
  size_t len = sizeof buf;
  int rc = fi_getname(&ep->fid, buf, &len);
  if (rc) fatal("ARMCI_Init", "%s", fi_error("fi_getname", rc).c_str());
  return std::string(buf, len);
}

fi_addr_t Endpoint::insert_one(const std::string& name, const char* what) {
  fi_addr_t a = FI_ADDR_UNSPEC;
  int rc = fi_av_insert(av, name.data(), 1, &a, 0, nullptr);
  if (rc != 1) fatal("ARMCI", "fi_av_insert of %s failed (rc %d)", what, rc);
  return a;
}

void Endpoint::insert(const std::vector<std::string>& names, const char* what) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    fi_addr_t a = FI_ADDR_UNSPEC;
    int rc = fi_av_insert(av, names[i].data(), 1, &a, 0, nullptr);
    if (rc != 1 || a != i)
      fatal("ARMCI_Init", "fi_av_insert of %s %zu failed (rc %d)", what, i, rc);
  }
}

fid_mr* Endpoint::register_memory(void* addr, std::size_t len, uint64_t access, uint64_t requested_key) {
  fid_mr* mr = nullptr;
  int rc = fi_mr_reg(domain, addr, len, access, 0, caps.prov_key ? 0 : requested_key, 0, &mr, nullptr);
  if (rc) fatal("ARMCI_Malloc", "registering %zu bytes at %p: %s", len, addr, fi_error("fi_mr_reg", rc).c_str());
  if (caps.mr_endpoint) {
    if ((rc = fi_mr_bind(mr, &ep->fid, 0)) || (rc = fi_mr_enable(mr)))
      fatal("ARMCI_Malloc", "%s", fi_error("fi_mr_bind/enable", rc).c_str());
  }
  mrs_.push_back(mr);
  return mr;
}

ssize_t Endpoint::read_cq(fi_cq_data_entry* e, std::size_t n, fi_cq_err_entry* err, const char* who) {
  const ssize_t got = fi_cq_read(cq, e, n);
  if (got == -FI_EAGAIN) return 0;
  if (got == -FI_EAVAIL) {
    *err = fi_cq_err_entry{};
    fi_cq_readerr(cq, err, 0);
    return -1;
  }
  if (got < 0) fatal(who, "NIC %s: %s", caps.domain.c_str(), fi_error("fi_cq_read", got).c_str());
  return got;
}

bool Endpoint::trywait() {
  if (wait_fd_ < 0) return false;
  fid* f = &cq->fid;
  return fi_trywait(fabric, &f, 1) == FI_SUCCESS;
}

}  // namespace armci::transport::ofi

// What armci-ofi would use on this machine, without starting a job (in the
// spirit of fi_info and ucx_info): the provider and why, every NIC that
// offers it with its locality, the capabilities the transport branches on,
// and the protocol thresholds the knobs set.  Honours ARMCI_OFI_PROVIDER,
// FI_PROVIDER and the provider's own variables (FI_TCP_IFACE, ...).
//   armci_info [--nics]   (--nics: the NIC list only, one per line)
#include <rdma/fi_atomic.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "armci_config.h"
#include "common/knobs.hpp"
#include "transports/ofi/am_protocol.hpp"
#include "transports/ofi/batch_wire.hpp"
#include "transports/ofi/fabric.hpp"
#include "transports/ofi/nics.hpp"

namespace ofi = armci::transport::ofi;

namespace {

ofi::EndpointOptions options(const armci::Knobs& k, bool atomics) {
  ofi::EndpointOptions o;
  o.provider = k.OFI_PROVIDER;
  o.atomics = atomics;
  o.force_mr_local = k.OFI_MR_LOCAL;
  o.rxm_rx_buffers = k.OFI_RXM_RX_BUFFERS;
  o.tagged = k.COLL_DIRECT;
  o.role = "armci_info";
  return o;
}

// Which 64-bit operations the provider does on the NIC (or in its own
// progress engine), as fi_query_atomic reports them for the first domain.
std::string native_atomics(const armci::Knobs& k) {
  std::string why;
  fi_info* info = ofi::choose_provider(options(k, true), nullptr, &why);
  if (!info) return "none (no FI_ATOMIC endpoint)";
  std::string out;
  fid_fabric* fab = nullptr;
  fid_domain* dom = nullptr;
  if (fi_fabric(info->fabric_attr, &fab, nullptr) == 0 && fi_domain(fab, info, &dom, nullptr) == 0) {
    struct Ask {
      const char* name;
      fi_datatype type;
      fi_op op;
      uint64_t flags;
    } asks[] = {{"int64 sum", FI_INT64, FI_SUM, 0},
                {"double sum", FI_DOUBLE, FI_SUM, 0},
                {"int64 fetch-add", FI_INT64, FI_SUM, FI_FETCH_ATOMIC},
                {"int64 swap", FI_INT64, FI_ATOMIC_WRITE, FI_FETCH_ATOMIC}};
    for (const Ask& a : asks) {
      fi_atomic_attr attr{};
      if (fi_query_atomic(dom, a.type, a.op, &attr, a.flags) == 0) out += (out.empty() ? "" : ", ") + std::string(a.name);
    }
  }
  if (dom) fi_close(&dom->fid);
  if (fab) fi_close(&fab->fid);
  fi_freeinfo(info);
  return out.empty() ? "none" : out;
}

std::string yes(bool b) { return b ? "yes" : "no"; }

}  // namespace

int main(int argc, char** argv) {
  const armci::Knobs k = armci::Knobs::from_environment();
  const ofi::Discovery d = ofi::discover_nics(options(k, false));
  if (argc > 1 && std::strcmp(argv[1], "--nics") == 0) {
    for (const ofi::Nic& n : d.nics)
      std::printf("%s %s numa=%d pci=%s speed_mbps=%ld%s\n", n.domain.c_str(),
                  n.fabrics.empty() ? "?" : n.fabrics[0].c_str(), n.numa, n.pci.empty() ? "-" : n.pci.c_str(),
                  n.speed_mbps, n.loopback ? " loopback" : "");
    return d.nics.empty() ? 1 : 0;
  }
  std::printf("armci-ofi %s\n", PACKAGE_VERSION);
  if (!d.error.empty()) {
    std::printf("provider: none: %s\n", d.error.c_str());
    return 1;
  }
  std::printf("provider: %s (chosen by %s)\n", d.provider.c_str(), d.how.c_str());
  int between_hosts = 0;
  std::printf("NICs offering it (libfabric domains):\n");
  for (const ofi::Nic& n : d.nics) {
    std::string fabrics;
    for (const std::string& f : n.fabrics) fabrics += (fabrics.empty() ? "" : " ") + f;
    std::printf("  %-12s %-32s NUMA %-3s PCI %-13s %s%s\n", n.domain.c_str(), fabrics.c_str(),
                n.numa >= 0 ? std::to_string(n.numa).c_str() : "-", n.pci.empty() ? "-" : n.pci.c_str(),
                n.speed_mbps > 0 ? (std::to_string(n.speed_mbps) + " Mb/s").c_str() : "speed ?",
                n.loopback ? "  this host only: not a NIC between hosts" : (n.up ? "" : "  link down"));
    if (!n.loopback) ++between_hosts;
  }
  std::printf("  %d NIC(s) between hosts\n", between_hosts);
  std::string bad;
  const std::vector<std::string> use = ofi::choose_nics(d, k.NICS, &bad);
  if (!bad.empty()) std::printf("  ARMCI_NICS: %s\n", bad.c_str());
  if (use.size() > 1) {
    // What ARMCI_NIC_PLACEMENT=near picks for the first local ranks (a
    // process also knows its own NUMA node, printed by ARMCI_VERBOSE=1).
    std::vector<int> numa;
    for (const std::string& n : use)
      for (const ofi::Nic& x : d.nics)
        if (x.domain == n) numa.push_back(x.numa);
    std::string order;
    for (const std::string& n : use) order += (order.empty() ? "" : " ") + n;
    std::printf("  in use: %s; transfers from %s split across them (ARMCI_OFI_STRIPE_FROM)\n", order.c_str(),
                armci::format_bytes(k.OFI_STRIPE_FROM).c_str());
    std::string spread;
    for (int r = 0; r < static_cast<int>(2 * use.size()); ++r)
      spread += (r ? ", " : "") + std::to_string(r) + "->" + use[ofi::home_nic(numa, -1, r)];
    std::printf("  a process's own traffic (ARMCI_NIC_PLACEMENT=%s): %s\n", k.NIC_PLACEMENT.c_str(),
                k.NIC_PLACEMENT == "near" ? ("a NIC on its NUMA node where known, else by local rank: " + spread).c_str()
                                          : "as set for every process");
  }

  // One endpoint on the first domain, as the runtime opens it.
  ofi::Endpoint ep(options(k, false));
  const ofi::Caps& c = ep.caps;
  std::printf("first domain: %s\n", c.describe().c_str());
  const std::string max_msg = c.max_msg >= (std::size_t{1} << 62) ? "unlimited" : armci::format_bytes(c.max_msg);
  std::printf("  limits: inject %zu B, max message %s, iov %zu, rma iov %zu, receive queue %zu, CQ data %s\n",
              c.inject, max_msg.c_str(), c.iov_limit, c.rma_iov_limit, c.rx_size, yes(c.cq_data).c_str());
  std::printf("  native atomics: %s (used only with ARMCI_OFI_ATOMICS=1; else the node agent applies them)\n",
              native_atomics(k).c_str());
  if (c.provider.find("ofi_rxm") != std::string::npos) {
    const char* rx = std::getenv("FI_OFI_RXM_MSG_RX_SIZE");
    std::printf("  rxm receive buffers per endpoint: %s (FI_OFI_RXM_MSG_RX_SIZE; ARMCI_OFI_RXM_RX_BUFFERS sets it)\n",
                rx ? rx : "libfabric's default");
  }

  const std::size_t inject = k.OFI_INJECT ? std::min(k.OFI_INJECT, c.inject) : c.inject;
  std::printf("protocol thresholds (ARMCI_* knobs, docs/knobs.md):\n");
  std::printf("  puts up to %s are injected (ARMCI_OFI_INJECT, capped by the provider)\n",
              armci::format_bytes(inject).c_str());
  if (const std::size_t acc_one = ofi::acc_one_max(inject); acc_one > 0)
    std::printf("  a lone accumulate of up to %s is injected too (AccOne: header and data within the inject size)\n",
                armci::format_bytes(acc_one).c_str());
  std::printf("  active messages (accumulates, packed pieces) carry up to %s each\n",
              armci::format_bytes(ofi::kAmMax).c_str());
  std::printf("  coalescing %s: operations up to %s, batches up to %s, sent after at most %ld us\n",
              k.OFI_COALESCE ? "on" : "off", armci::format_bytes(std::min(k.OFI_COALESCE_MAX, ofi::kBatchRoom / 2)).c_str(),
              armci::format_bytes(ofi::kBatchRoom).c_str(), k.OFI_COALESCE_US);
  std::printf("  strided/vector pieces below %s average are packed (ARMCI_OFI_PACK_BELOW)\n",
              armci::format_bytes(k.OFI_PACK_BELOW).c_str());
  if (k.OFI_STAGE_FROM)
    std::printf("  transfers from %s are staged in %s slots (pieces below %s), at most %s per node\n",
                armci::format_bytes(k.OFI_STAGE_FROM).c_str(), armci::format_bytes(k.OFI_STAGE_SLOT).c_str(),
                armci::format_bytes(k.OFI_STAGE_PIECES_BELOW).c_str(), armci::format_bytes(k.OFI_STAGE_MAX).c_str());
  else
    std::printf("  staging off (ARMCI_OFI_STAGE_FROM=0)\n");
  std::printf("  write completion: %s; collectives' messages %s\n", k.OFI_WRITE_COMPLETION.c_str(),
              k.COLL_DIRECT && c.tagged ? "process to process (tagged)" : "through the node agents");
  return 0;
}

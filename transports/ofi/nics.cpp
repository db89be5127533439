#include "transports/ofi/nics.hpp"

#include <hwloc.h>
#include <rdma/fi_domain.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace armci::transport::ofi {

namespace {

bool loopback_fabric(const std::string& f) {
  return f.rfind("127.", 0) == 0 || f.rfind("::1/", 0) == 0 || f == "::1";
}

// hwloc with I/O objects: the PCI device or network OS device of the NIC,
// and the NUMA node of the first non-I/O object above it.
class IoTopology {
 public:
  IoTopology() {
    if (hwloc_topology_init(&t_) != 0) {
      t_ = nullptr;
      return;
    }
    hwloc_topology_set_io_types_filter(t_, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t_) != 0) {
      hwloc_topology_destroy(t_);
      t_ = nullptr;
    }
  }
  ~IoTopology() {
    if (t_) hwloc_topology_destroy(t_);
  }
  IoTopology(const IoTopology&) = delete;
  IoTopology& operator=(const IoTopology&) = delete;

  // The OS device named `name` (a network interface, an HCA), or its PCI
  // device by bus id.
  void locate(Nic& n, const fid_nic* nic) const {
    if (!t_) return;
    hwloc_obj_t at = nullptr;
    if (nic && nic->bus_attr && nic->bus_attr->bus_type == FI_BUS_PCI) {
      const fi_pci_attr& p = nic->bus_attr->attr.pci;
      at = hwloc_get_pcidev_by_busid(t_, p.domain_id, p.bus_id, p.device_id, p.function_id);
    }
    for (hwloc_obj_t o = nullptr; !at && (o = hwloc_get_next_osdev(t_, o));)
      if (o->name && n.domain == o->name) at = o;
    if (!at) return;
    for (hwloc_obj_t o = at; o; o = o->parent)
      if (o->type == HWLOC_OBJ_PCI_DEVICE) {
        char id[32];
        std::snprintf(id, sizeof id, "%04x:%02x:%02x.%x", o->attr->pcidev.domain, o->attr->pcidev.bus,
                      o->attr->pcidev.dev, o->attr->pcidev.func);
        n.pci = id;
        break;
      }
    hwloc_obj_t cpu_side = hwloc_get_non_io_ancestor_obj(t_, at);
    if (cpu_side && cpu_side->nodeset && hwloc_bitmap_weight(cpu_side->nodeset) == 1)
      n.numa = hwloc_bitmap_first(cpu_side->nodeset);
  }

 private:
  hwloc_topology_t t_ = nullptr;
};

// Where libfabric gives no link attributes (tcp, sockets), the interface's
// own: Linux reports speed and state under /sys/class/net.
void link_from_sysfs(Nic& n) {
  std::ifstream sp("/sys/class/net/" + n.domain + "/speed");
  long v = -1;
  if (sp >> v && v > 0) n.speed_mbps = v;
  std::ifstream st("/sys/class/net/" + n.domain + "/operstate");
  std::string s;
  if (st >> s) n.up = s != "down";
}

}  // namespace

Discovery discover_nics(const EndpointOptions& opt, bool locate) {
  Discovery d;
  fi_info* list = choose_provider(opt, &d.how, &d.error);
  if (!list) return d;
  d.provider = list->fabric_attr->prov_name ? list->fabric_attr->prov_name : "?";
  std::unique_ptr<IoTopology> io;
  if (locate) io = std::make_unique<IoTopology>();
  for (fi_info* i = list; i; i = i->next) {
    const std::string dom = i->domain_attr->name ? i->domain_attr->name : "?";
    const std::string fab = i->fabric_attr->name ? i->fabric_attr->name : "?";
    auto it = std::find_if(d.nics.begin(), d.nics.end(), [&](const Nic& n) { return n.domain == dom; });
    if (it == d.nics.end()) {
      Nic n;
      n.domain = dom;
      if (i->nic && i->nic->link_attr) {
        if (i->nic->link_attr->speed) n.speed_mbps = static_cast<long>(i->nic->link_attr->speed / 1000000);
        n.up = i->nic->link_attr->state != FI_LINK_DOWN;
      } else {
        link_from_sysfs(n);
      }
      if (io) io->locate(n, i->nic);
      d.nics.push_back(n);
      it = d.nics.end() - 1;
    }
    if (std::find(it->fabrics.begin(), it->fabrics.end(), fab) == it->fabrics.end()) it->fabrics.push_back(fab);
  }
  fi_freeinfo(list);
  for (Nic& n : d.nics)
    n.loopback = n.domain == "lo" || d.provider == "shm" ||
                 std::all_of(n.fabrics.begin(), n.fabrics.end(), [](const std::string& f) { return loopback_fabric(f); });
  return d;
}

std::vector<std::string> choose_nics(const Discovery& d, const std::string& which, std::string* error) {
  std::vector<std::string> hosts;  // NICs that reach other hosts, in libfabric's order
  for (const Nic& n : d.nics)
    if (!n.loopback && n.up) hosts.push_back(n.domain);
  // Rail r of every node must be on one network; libfabric's order need not
  // agree between hosts (it varied under Slurm), names of one cluster do.
  std::sort(hosts.begin(), hosts.end());
  if (which.empty()) return hosts;
  char* end = nullptr;
  const long count = std::strtol(which.c_str(), &end, 10);
  if (end && *end == 0 && count > 0) {
    if (hosts.size() > static_cast<std::size_t>(count)) hosts.resize(static_cast<std::size_t>(count));
    return hosts;
  }
  std::vector<std::string> out;
  std::stringstream ss(which);
  for (std::string name; std::getline(ss, name, ',');) {
    if (name.empty()) continue;
    const bool there = std::any_of(d.nics.begin(), d.nics.end(), [&](const Nic& n) { return n.domain == name; });
    if (!there) {
      if (error) *error = "ARMCI_NICS names \"" + name + "\", which does not offer " + d.provider + " here";
      return {};
    }
    out.push_back(name);
  }
  return out;
}

std::string describe_nics(const std::vector<Nic>& nics) {
  std::ostringstream o;
  for (std::size_t k = 0; k < nics.size(); ++k) {
    const Nic& n = nics[k];
    o << (k ? "; " : "") << n.domain << " (";
    if (n.loopback) {
      o << "this host only, not a NIC between hosts)";
      continue;
    }
    o << (n.fabrics.empty() ? "?" : n.fabrics[0]);
    if (n.numa >= 0) o << ", NUMA " << n.numa;
    if (!n.pci.empty()) o << ", PCI " << n.pci;
    if (n.speed_mbps > 0) o << ", " << n.speed_mbps << " Mb/s";
    if (!n.up) o << ", link down";
    o << ")";
  }
  return o.str();
}

}  // namespace armci::transport::ofi

namespace armci::transport::ofi {

std::size_t home_nic(const std::vector<int>& numa, int my_numa, int local_rank) {
  if (numa.empty()) return 0;
  std::vector<std::size_t> near;
  for (std::size_t k = 0; k < numa.size(); ++k)
    if (my_numa >= 0 && numa[k] == my_numa) near.push_back(k);
  const auto r = static_cast<std::size_t>(std::max(local_rank, 0));
  return near.empty() ? r % numa.size() : near[r % near.size()];
}

}  // namespace armci::transport::ofi

#include "armci/runtime.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include "armci/collectives.hpp"
#include "armci/route.hpp"
#include "armci/mpi_interop.hpp"
#include "transports/ofi/nics.hpp"
#include "transports/ofi/ofi.hpp"
#include "transports/shm.hpp"

namespace armci {

namespace {
Runtime* g_instance = nullptr;  // the one piece of global state
// How often this process started ARMCI on each world (by member list): the
// PMIx keys of a start carry it, so that a world started again (or a
// different world, e.g. from a sub-communicator) never reads the keys of an
// earlier start.  Every member of a world has started it equally often.
std::map<std::vector<int>, unsigned> g_starts;

std::size_t physical_memory() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(size)
                               : std::size_t{16} << 30;
}
std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }
}  // namespace

Runtime* Runtime::instance() { return g_instance; }

transport::ofi::EndpointOptions Runtime::endpoint_options(const char* role) const {
  transport::ofi::EndpointOptions o;
  o.provider = knobs.OFI_PROVIDER;
  o.atomics = knobs.OFI_ATOMICS;
  o.force_mr_local = knobs.OFI_MR_LOCAL;
  o.rxm_rx_buffers = knobs.OFI_RXM_RX_BUFFERS;
  o.role = role;
  o.tagged = std::strcmp(role, "initiator") == 0 && knobs.COLL_DIRECT;
  if (nics.size() > 1) o.domain = nics[0];  // one NIC: the provider's first, as always
  return o;
}

// The libfabric initiator's world: knobs, topology, this node's heap, the
// statistics sink.  The heap view is asked only for FI_MR_LOCAL descriptors.
transport::OfiContext Runtime::ofi_context() {
  transport::OfiContext c;
  c.endpoint = endpoint_options("initiator");
  c.inject_max = knobs.OFI_INJECT;
  c.pack_below = knobs.OFI_PACK_BELOW;
  if (knobs.OFI_STAGE_FROM &&
      (knobs.OFI_STAGE_SLOT < 2 * transport::ofi::kAmMax || knobs.OFI_STAGE_SLOT > (std::size_t{1} << 30)))
    fatal("ARMCI_Init", "ARMCI_OFI_STAGE_SLOT=%zu: a staging slot must hold between %zu bytes (two active messages) "
          "and 1 GiB", knobs.OFI_STAGE_SLOT, 2 * transport::ofi::kAmMax);
  c.stage_from = knobs.OFI_STAGE_FROM;
  c.stage_pieces_below = knobs.OFI_STAGE_PIECES_BELOW;
  c.stage_slot = knobs.OFI_STAGE_SLOT + transport::ofi::kStageHead;
  c.stage_cq_data = knobs.OFI_STAGE_CQ_DATA;
  c.polled_am = knobs.OFI_POLLED_AM;
  c.eagain_timeout = knobs.OFI_EAGAIN_TIMEOUT;
  c.coalesce.on = knobs.OFI_COALESCE;
  c.coalesce.op_max = std::min<std::size_t>(knobs.OFI_COALESCE_MAX, transport::ofi::kBatchRoom / 2);
  c.coalesce.delay_us = knobs.OFI_COALESCE_US;
  c.coalesce.get_max = knobs.OFI_COALESCE_GET_MAX;
  if (knobs.OFI_WRITE_COMPLETION != "delivery" && knobs.OFI_WRITE_COMPLETION != "flush")
    fatal("ARMCI_Init", "ARMCI_OFI_WRITE_COMPLETION=\"%s\" is neither delivery nor flush",
          knobs.OFI_WRITE_COMPLETION.c_str());
  c.write_flush = knobs.OFI_WRITE_COMPLETION == "flush";
  c.me = topo.me;
  c.nprocs = topo.nprocs();
  c.direct_messages = knobs.COLL_DIRECT;
  if (nics.size() > 1) c.rail_domains.assign(nics.begin() + 1, nics.end());
  c.stripe_from = knobs.OFI_STRIPE_FROM;
  c.peer_address = [this](int rank) { return boot->get(topo.world[static_cast<std::size_t>(rank)], key_prefix + "msgep"); };
  for (int n = 0; n < topo.nnodes; ++n) {
    c.node_leader.push_back(topo.node_leader(n));
    c.procs_outside.push_back(topo.procs_outside(n));
  }
  c.local_segment = [this](uintptr_t a, std::size_t len, transport::LocalSegment* out) {
    if (!heap || !heap->contains(a, len)) return false;
    const int s = heap->segment_of(a);
    if (s < 0 || heap->segment_of(a + len - 1) != s) return false;
    const auto& e = heap->ctl().seg[s];
    *out = {static_cast<uint32_t>(s), reinterpret_cast<void*>(heap->base() + e.off), static_cast<std::size_t>(e.size)};
    return true;
  };
  c.stats = &stats.ofi;
  return c;
}

// The NIC of this process's own traffic.  Spread by local rank, the ranks
// of one node share their node's NICs evenly; NUMA first where known.
std::size_t Runtime::home_nic(std::size_t count) const {
  const std::string& how = knobs.NIC_PLACEMENT;
  if (how == "first" || (count < 2 && how == "near")) return 0;
  if (how == "near") {
    const std::vector<int> numa(nic_numa.begin(), nic_numa.begin() + static_cast<std::ptrdiff_t>(count));
    return transport::ofi::home_nic(numa, this->numa->my_node(), topo.my_local());
  }
  char* end = nullptr;
  const long k = std::strtol(how.c_str(), &end, 10);
  if (how.empty() || *end || k < 0 || static_cast<std::size_t>(k) >= std::max<std::size_t>(count, nics.size()))
    fatal("ARMCI_Init", "ARMCI_NIC_PLACEMENT=\"%s\" is not near, first or the number of a NIC in use (0 to %zu)",
          how.c_str(), std::max<std::size_t>(count, nics.size()) - 1);
  return std::min<std::size_t>(static_cast<std::size_t>(k), count - 1);
}

void Runtime::raise_thread_level(int level) {
  thread_level = std::max(thread_level, level);
  apply_thread_level();
  mpi_coll.thread_level_raised(thread_level);
}

// Locks are taken only where several threads may call at once.
void Runtime::apply_thread_level() {
  const bool multiple = thread_level == ARMCI_THREAD_MULTIPLE;
  handles.set_threaded(multiple);
  node_coll.set_threaded(multiple);
  mpi_coll.set_threaded(multiple);
  addresses.set_threaded(multiple);
  if (ofi) ofi->set_threaded(multiple);
}

Runtime& Runtime::create(const InitOptions& opts) {
  ARMCI_ASSERT(!g_instance);
  new Runtime(opts);  // registers itself as g_instance first thing
  return *g_instance;
}

void Runtime::destroy() {
  if (!g_instance) return;
  g_instance->finalize_sequence();
  delete g_instance;  // clears g_instance
}

Runtime::Runtime(const InitOptions& opts) {
  g_instance = this;
  install_logger(&logger);
  install_wait_policy(&waiting);
  thread_level = opts.thread_level;
  knobs = Knobs::from_environment();
  logger.verbose = static_cast<int>(knobs.VERBOSE);
  waiting.spin_us = knobs.SPIN_US;
  waiting.timeout_s = knobs.TIMEOUT;
  profile.on = !knobs.PROFILE.empty() && knobs.PROFILE != "0";
  if (knobs.ERRORS != "abort" && knobs.ERRORS != "return")
    fatal(opts.call, "ARMCI_ERRORS=\"%s\" is neither abort nor return", knobs.ERRORS.c_str());
  if (knobs.NUMA != "bind" && knobs.NUMA != "off")
    fatal(opts.call, "ARMCI_NUMA=\"%s\" is neither bind nor off", knobs.NUMA.c_str());
  if (knobs.VNODES < 1) fatal(opts.call, "ARMCI_VNODES=%ld must be at least 1", knobs.VNODES);
  const memory::Backing backing = memory::parse_backing(knobs.SHM_BACKEND);

  boot = make_pmix_bootstrap();
  logger.abort_job = [this](int code, const std::string& why) { boot->abort(code, why); };
  std::vector<int> world = opts.world;
  if (world.empty())
    for (int r = 0; r < boot->size(); ++r) world.push_back(r);
  topo = make_topology(world, boot->rank(), boot->node_ids(), static_cast<int>(knobs.VNODES));
  logger.rank = topo.me;
  logger.nprocs = topo.nprocs();
  logger.node = topo.my_node();
  logger.host = boot->hostname(boot->rank());
  launcher_ppid = boot->singleton() ? 0 : static_cast<int>(getppid());
  waiting.check_health = [this] { check_health(); };
  waiting.yield_every = host_oversubscribed() ? 1 : 16;
  numa = std::make_unique<memory::Numa>(knobs.NUMA == "bind");
  multi_node = topo.nnodes > 1;
  checks = knobs.CHECKS;
  addresses.resize(topo.node_of);

  const std::size_t slot = std::clamp<std::size_t>(knobs.MSG_SLOT, 256, std::size_t{1} << 20);
  const std::size_t mail_bytes = static_cast<std::size_t>(topo.nlocal()) * Mailbox::area_bytes(topo.nprocs(), slot);
  const std::size_t prefix = mail_bytes + static_cast<std::size_t>(topo.nlocal()) * NodeColl::area_bytes();
  const unsigned start = ++g_starts[world];
  std::size_t world_hash = world.size();
  for (int w : world) world_hash = world_hash * 1000003u + static_cast<std::size_t>(w);
  key_prefix = "armci." + std::to_string(world_hash) + "." + std::to_string(start) + ".";
  auto key = [this](const char* what) { return key_prefix + what; };
  auto launcher = [this](int world_rank) { return topo.world[static_cast<std::size_t>(world_rank)]; };

  if (multi_node) {  // the NICs this node uses (ARMCI_NICS), before any endpoint opens
    std::string bad;
    auto found = transport::ofi::discover_nics(endpoint_options("discovery"), false);
    nics = transport::ofi::choose_nics(found, knobs.NICS, &bad);
    if (!bad.empty()) fatal(opts.call, "%s (`armci_info` lists them)", bad.c_str());
    if (nics.size() > memory::kMaxNics) {
      verbose(1, "using the first %u of %zu NICs (a segment has a key per NIC, for at most that many)",
              memory::kMaxNics, nics.size());
      nics.resize(memory::kMaxNics);
    }
    // Where NICs sit (hwloc's I/O objects: a few hundred ms) only when a
    // process has a near one to choose.
    if (nics.size() > 1 && knobs.NIC_PLACEMENT == "near")
      found = transport::ofi::discover_nics(endpoint_options("discovery"), true);
    for (const std::string& n : nics) {
      auto it = std::find_if(found.nics.begin(), found.nics.end(), [&](const auto& f) { return f.domain == n; });
      nic_numa.push_back(it == found.nics.end() ? -1 : it->numa);
    }
  }
  if (is_leader()) {
    start_node_agent(prefix);
    boot->put(key("ctl"), heap_service->socket_name());
    if (multi_node) {
      boot->put(key("agent"), ofi_agent->address());
      const auto rails = ofi_agent->rail_addresses();
      boot->put(key("agent.rails"), std::to_string(rails.size()));
      for (std::size_t r = 0; r < rails.size(); ++r) boot->put(key_prefix + "agent.rail" + std::to_string(r + 1), rails[r]);
    }
  }
  if (multi_node) {
    ofi = std::make_unique<transport::Ofi>(ofi_context());
    boot->put(key("ep"), ofi->address());
    const auto my_rails = ofi->rail_addresses();
    for (std::size_t r = 0; r < my_rails.size(); ++r) boot->put(key_prefix + "ep.rail" + std::to_string(r + 1), my_rails[r]);
    if (ofi->direct_messages()) boot->put(key("msgep"), ofi->message_address());
  }
  boot->fence(topo.world);

  const int my_leader = topo.node_leader(topo.my_node());
  heap = std::make_unique<memory::NodeHeap>(boot->get(launcher(my_leader), key("ctl")),
                                            static_cast<uint32_t>(topo.my_local()),
                                            is_leader() ? &heap_service->control() : nullptr, backing);
  heap->ctl().procs[topo.my_local()].numa_node.store(numa->my_node());
  shm = std::make_unique<transport::Shm>(*heap);
  apply_thread_level();  // before any RMA: the transports exist now

  node_heap_base.assign(static_cast<std::size_t>(topo.nnodes), 0);
  node_heap_base[static_cast<std::size_t>(topo.my_node())] = heap->base();
  if (multi_node) {
    std::vector<std::string> agents(static_cast<std::size_t>(topo.nnodes));
    for (int n = 0; n < topo.nnodes; ++n)
      agents[static_cast<std::size_t>(n)] = boot->get(launcher(topo.node_leader(n)), key("agent"));
    // As many more NICs as every node's agent has (rail r of each node on
    // the same network, as the domain order lists them).
    std::size_t rails = nics.size() > 1 ? nics.size() - 1 : 0;
    for (int n = 0; n < topo.nnodes && rails; ++n)
      rails = std::min<std::size_t>(rails, std::stoul(boot->get(launcher(topo.node_leader(n)), key("agent.rails"))));
    std::vector<std::vector<std::string>> rail_agents(rails, std::vector<std::string>(static_cast<std::size_t>(topo.nnodes)));
    for (std::size_t r = 0; r < rails; ++r)
      for (int n = 0; n < topo.nnodes; ++n)
        rail_agents[r][static_cast<std::size_t>(n)] =
            boot->get(launcher(topo.node_leader(n)), key_prefix + "agent.rail" + std::to_string(r + 1));
    ofi->connect(agents, rail_agents, home_nic(rails + 1));
    if (is_leader()) {
      // Every process's endpoint on every NIC in use: each is answered on its own.
      std::vector<std::vector<std::string>> eps(rails + 1, std::vector<std::string>(static_cast<std::size_t>(topo.nprocs())));
      for (int r = 0; r < topo.nprocs(); ++r) {
        eps[0][static_cast<std::size_t>(r)] = boot->get(launcher(r), key("ep"));
        for (std::size_t k = 1; k <= rails; ++k)
          eps[k][static_cast<std::size_t>(r)] = boot->get(launcher(r), key_prefix + "ep.rail" + std::to_string(k));
      }
      agent->call([&] { ofi_agent->connect(eps); });
      // Base, segment 0 and its key on each NIC in use.
      const auto& s0 = heap->ctl().seg[0];
      char buf[64];
      std::snprintf(buf, sizeof buf, "%llx %llx %llx", static_cast<unsigned long long>(heap->base()),
                    static_cast<unsigned long long>(s0.off), static_cast<unsigned long long>(s0.size));
      std::string desc = buf;
      for (std::size_t k = 0; k <= rails; ++k) {
        std::snprintf(buf, sizeof buf, " %llx", static_cast<unsigned long long>(s0.keys[k]));
        desc += buf;
      }
      boot->put(key("heap"), desc);
    }
    boot->fence(topo.world);
    // Every node, this one included: native atomics reach it through the NIC.
    for (int n = 0; n < topo.nnodes; ++n) {
      unsigned long long base = 0, off = 0, size = 0;
      uint64_t keys[memory::kMaxNics] = {};
      std::istringstream v(boot->get(launcher(topo.node_leader(n)), key("heap")));
      v >> std::hex >> base >> off >> size;
      for (std::size_t k = 0; k <= rails; ++k) v >> keys[k];
      if (!v) fatal(opts.call, "node %d published a malformed heap description", n);
      if (n != topo.my_node()) node_heap_base[static_cast<std::size_t>(n)] = base;
      ofi->learn_node(n, base, off, size, keys);
    }
  }
  if (ofi) {
    waiting.poll_network = [this] {
      ofi->progress();
      return ofi->busy();
    };
  }
  allocations.start_local_pool(*this);
  mailbox.init(*this, slot);
  node_coll.init(*this, heap->base() + mail_bytes);
  groups.init(topo.nprocs(), topo.me);
  if (opts.mpi_world) *static_cast<void**>(groups.mpi_comm_slot(Groups::kWorld)) = opts.mpi_world;
  coll::barrier(*this, groups.world(), "ARMCI_Init");
  mpi_watch_finalize(*this);
  mpi_coll.start(*this);
  if (verbose_on(1)) {
    std::string r = report();
    verbose(1, "%s", r.c_str());
  }
}

void Runtime::start_node_agent(std::size_t prefix) {
  EventLoop::Policy poll;
  poll.poll_us = knobs.PROGRESS_POLL_US;
  poll.idle_poll_us = knobs.PROGRESS_IDLE_US;
  poll.yield_when_contested = knobs.PROGRESS_YIELD;
  poll.contested_poll_us = knobs.PROGRESS_CONTESTED_US;
  agent = std::make_unique<EventLoop>(poll);
  memory::HeapConfig cfg;
  cfg.backing = memory::parse_backing(knobs.SHM_BACKEND);
  cfg.segment_size = round_up(std::max<std::size_t>(knobs.SHM_SEGMENT, 1u << 20), 2u << 20);
  cfg.limit = knobs.SHM_LIMIT;
  std::size_t phys = physical_memory();
  cfg.reserve = round_up(std::max(phys, cfg.limit) + prefix, std::size_t{1} << 30);
  cfg.prefix_bytes = prefix;
  cfg.nlocal = static_cast<uint32_t>(topo.nlocal());
  const int node = topo.my_node();
  heap_service = std::make_unique<memory::HeapService>(
      *agent, cfg, [this, node](uint32_t local, int pid) {
        int rank = local < topo.node_procs[static_cast<std::size_t>(node)].size()
                       ? topo.node_procs[static_cast<std::size_t>(node)][local]
                       : -1;
        fatal("node agent",
              "process %d (pid %d) of node %d exited without ARMCI_Finalize; aborting the job so "
              "that no process waits for it forever",
              rank, pid, node);
      });
  if (multi_node) {
    transport::OfiAgentContext c;
    c.endpoint = endpoint_options("node agent");
    c.senders = topo.procs_outside(topo.my_node());
    c.nprocs = topo.nprocs();
    c.stage_slot = knobs.OFI_STAGE_FROM ? knobs.OFI_STAGE_SLOT + transport::ofi::kStageHead : 0;
    c.stage_max = knobs.OFI_STAGE_MAX;
    c.polled_am = knobs.OFI_POLLED_AM;
    c.ctl = &heap_service->control();
    c.sync = &agent_sync;
    if (nics.size() > 1) c.rail_domains.assign(nics.begin() + 1, nics.end());
    ofi_agent = std::make_unique<transport::OfiAgent>(c);
    heap_service->set_segment_hook([this](uint32_t idx, void* addr, std::size_t len, uint64_t* keys) {
      ofi_agent->register_segment(idx, addr, len, keys);
    });
    heap_service->set_poke_hook([this] { ofi_agent->lock_released(); });
    ofi_agent->attach(*agent);
  }
  agent->start("armci-agent");
}

// More processes on this host than online CPUs: a spinning waiter then
// holds a core that the process it waits for needs.  (Node agents sleep
// while idle and do not count.)
bool Runtime::host_oversubscribed() const {
  const int host = topo.phys_node_of[static_cast<std::size_t>(topo.me)];
  const long procs = std::count(topo.phys_node_of.begin(), topo.phys_node_of.end(), host);
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 0 && procs > cpus;
}

void Runtime::check_health() {
  if (launcher_ppid && getppid() != launcher_ppid)
    fatal("ARMCI", "the launcher process (pid %d) is gone; exiting instead of waiting for peers",
          launcher_ppid);
  if (heap && !heap->agent_alive())
    fatal("ARMCI", "the process running this node's agent (rank %d) is gone; aborting",
          topo.node_leader(topo.my_node()));
}

void Runtime::finalize_sequence() {
  mpi_unwatch_finalize(*this);
  report_profile(*this);
  mpi_coll.stop();
  // Everything this process sent is complete at its target, then everyone
  // waits for everyone (outside our own transport, so nothing is in flight
  // afterwards) before any agent stops.
  route::fence_all(*this);
  if (ofi) ofi->quiesce();
  boot->fence(topo.world);
  if (knobs.STATS) {
    std::string s = stats.text();
    std::fprintf(stderr, "armci-ofi [%d] stats: %s\n", topo.me, s.c_str());
  }
  waiting.poll_network = nullptr;
  ofi.reset();
  allocations.stop_local_pool();
  heap->detach();
  if (agent) {
    // The agent serves the node's memory until every process has said goodbye.
    Backoff b("ARMCI_Finalize", "the other processes of this node to finalize");
    for (;;) {
      bool done = false;
      agent->call([&] { done = heap_service->all_detached(); });
      if (done) break;
      b.pause();
    }
    agent->stop();
    verbose(2, "node agent loop: %s", agent->counters().c_str());
  }
  shm.reset();
  heap.reset();
  ofi_agent.reset();
  heap_service.reset();
  agent.reset();
  boot->finalize();
}

Runtime::~Runtime() {
  install_wait_policy(nullptr);
  install_logger(nullptr);
  g_instance = nullptr;
}

std::string Runtime::report() const {
  std::ostringstream o;
  o << "rank " << topo.me << "/" << topo.nprocs() << " on node " << topo.my_node() << " (local "
    << topo.my_local() << " of " << topo.nlocal() << "), host " << logger.host << ", pid "
    << getpid() << "\n  placement: " << numa->describe() << "\n  heap: base "
    << reinterpret_cast<void*>(heap->base()) << ", " << format_bytes(heap->reserved())
    << " reserved, segments of " << format_bytes(knobs.SHM_SEGMENT) << ", backing "
    << knobs.SHM_BACKEND << ", limit "
    << (heap->ctl().limit.load() ? format_bytes(heap->ctl().limit.load()) : std::string("physical memory"))
    << ", " << heap->ctl().nsegments.load() << " segment(s), "
    << heap->ctl().registrations.load() << " NIC registration(s) on this node";
  if (topo.me == 0) o << "\n  topology: " << topo.describe();
  if (ofi) {
    o << "\n  " << ofi->describe();
    if (topo.me == 0)
      o << "\n  NICs offering the provider: "
        << transport::ofi::describe_nics(transport::ofi::discover_nics(endpoint_options("report")).nics);
  }
  else o << "\n  transport: load/store only (one node)";
  if (topo.me == 0) {
    const auto& t = Knobs::table();
    for (std::size_t i = 0; i < t.size(); ++i)
      if (knobs.from_env[i]) o << "\n  ARMCI_" << t[i].name << "=" << knobs.value_text(i);
  }
  return o.str();
}

std::string Stats::text() const {
  return "local_ops=" + std::to_string(local_ops) + " " + ofi.text() + " mallocs=" + std::to_string(mallocs);
}

}  // namespace armci

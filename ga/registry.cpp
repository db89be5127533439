#include "ga/registry.hpp"

#include "armci/armcix.h"
#include "ga/errors.hpp"
#include "message.h"

namespace ga {

namespace {
Registry* g_reg = nullptr;  // the single registry object
}

Registry& reg(const char* call) {
  if (!g_reg) fail(call, "GA is not initialized (call GA_Initialize first)");
  return *g_reg;
}

Registry* reg_or_null() { return g_reg; }

void reg_create() {
  g_reg = new Registry;
  Registry& r = *g_reg;
  r.me = armci_msg_me();
  r.nprocs = armci_msg_nproc();
  r.nnodes = armci_domain_count(ARMCI_DOMAIN_SMP);
  r.my_node = armci_domain_my_id(ARMCI_DOMAIN_SMP);
  for (int p = 0; p < r.nprocs; ++p) r.node_of.push_back(armci_domain_id(ARMCI_DOMAIN_SMP, p));
  r.groups.init(r.nprocs, r.me);
  if (const char* prefix = ARMCIX_Trace_prefix()) r.trace = std::make_unique<Trace>(prefix, r.me, r.nprocs);
}

void reg_destroy() {
  delete g_reg;
  g_reg = nullptr;
}

Array& Registry::handle(const char* call, int g) {
  const long i = static_cast<long>(g) + kHandleOffset;
  if (i < 0 || i >= static_cast<long>(arrays.size()) || !arrays[static_cast<std::size_t>(i)])
    fail(call, "array handle %d is not a valid array (never created, or destroyed)", g);
  return *arrays[static_cast<std::size_t>(i)];
}

Array& Registry::array(const char* call, int g) {
  Array& a = handle(call, g);
  if (!a.allocated) fail(call, "array %d ('%s') is not allocated yet (GA_Allocate)", g, a.name.c_str());
  if (a.my_rank < 0)
    fail(call, "this process is not a member of group %d of array %d ('%s')", a.group, g, a.name.c_str());
  return a;
}

int Registry::new_handle() {
  // Index 1000 would be handle 0, which means "failed": never hand it out.
  std::size_t i = 0;
  while (i < arrays.size() && (arrays[i] || i == kHandleOffset)) ++i;
  if (i == kHandleOffset) ++i;
  while (arrays.size() <= i) arrays.emplace_back();
  arrays[i] = std::make_unique<Array>();
  const int h = static_cast<int>(i) - kHandleOffset;
  arrays[i]->handle = h;
  return h;
}

void Registry::drop(int g) { arrays[static_cast<std::size_t>(g + kHandleOffset)].reset(); }

}  // namespace ga

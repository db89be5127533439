// ARMCI-MPI's extensions (armcix.h): group split/dup, mutex batches owned by
// libraries, explicit progress.
#include <algorithm>
#include <memory>
#include <vector>

#include "armci/armci.h"
#include "armci/armcix.h"
#include "armci/collectives.hpp"
#include "armci/mpi_interop.hpp"
#include "armci/mutexes.hpp"
#include "armci/runtime.hpp"
#include "armci/validate.hpp"
#include "armci/route.hpp"

using namespace armci;

// What an armcix_mutex_hdl_t points to.
struct armcix_mutex_hdl_s {
  MutexSet set;
};

namespace {

// Members of the parent with my color, ordered by (key, parent rank), as
// parent ranks: the list Groups::create takes.
std::vector<int> split_members(Runtime& r, const Team& parent, int color, int key, const char* call) {
  const int mine[2] = {color, key};
  std::vector<int> all(2 * static_cast<std::size_t>(parent.size()));
  coll::allgather(r, parent, mine, sizeof mine, all.data(), call);
  std::vector<int> list;
  for (int p = 0; p < parent.size(); ++p)
    if (all[2 * static_cast<std::size_t>(p)] == color) list.push_back(p);
  std::stable_sort(list.begin(), list.end(), [&](int a, int b) {
    return all[2 * static_cast<std::size_t>(a) + 1] < all[2 * static_cast<std::size_t>(b) + 1];
  });
  return list;
}

armcix_mutex_hdl_s* checked_hdl(armcix_mutex_hdl_t h, const char* call) {
  if (!h) bad_arg(call, "mutex handle is NULL");
  return h;
}

}  // namespace

extern "C" {

int ARMCIX_Group_split(ARMCI_Group* parent, int color, int key, ARMCI_Group* new_group) {
  ARMCI_API_TRY
  const char* call = "ARMCIX_Group_split";
  Runtime& r = checked_rt(call);
  if (!parent || !new_group) bad_arg(call, "a group pointer is NULL");
  const Team& pt = r.groups.team(*parent, call);
  if (!pt.member()) bad_arg(call, "this process is not a member of group %d", *parent);
  if (color < 0) color = -1;  // MPI_UNDEFINED and every negative color: no group
  std::vector<int> list = split_members(r, pt, color, key, call);
  if (color < 0) list.clear();
  ARMCI_Group g = r.groups.create(r, pt, static_cast<int>(list.size()), list.data(), call);
  if (color < 0) {
    r.groups.free(g, call);
    *new_group = -1;
    return 0;
  }
  *new_group = g;
  mpi_group_created(r, g);
  return 0;
  ARMCI_API_CATCH(kErrBadArg)
}

int ARMCIX_Group_dup(ARMCI_Group* parent, ARMCI_Group* new_group) {
  ARMCI_API_TRY
  const char* call = "ARMCIX_Group_dup";
  Runtime& r = checked_rt(call);
  if (!parent || !new_group) bad_arg(call, "a group pointer is NULL");
  const Team& pt = r.groups.team(*parent, call);
  if (!pt.member()) bad_arg(call, "this process is not a member of group %d", *parent);
  std::vector<int> list(static_cast<std::size_t>(pt.size()));
  for (int i = 0; i < pt.size(); ++i) list[static_cast<std::size_t>(i)] = i;
  *new_group = r.groups.create(r, pt, pt.size(), list.data(), call);
  mpi_group_created(r, *new_group);
  return 0;
  ARMCI_API_CATCH(kErrBadArg)
}

armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group* pgroup) {
  ARMCI_API_TRY
  const char* call = "ARMCIX_Create_mutexes_hdl";
  Runtime& r = checked_rt(call);
  const Team& t = pgroup ? r.groups.team(*pgroup, call) : r.groups.world();
  auto h = std::make_unique<armcix_mutex_hdl_s>();
  if (h->set.create(r, t, count, call) != 0) return nullptr;
  return h.release();
  ARMCI_API_CATCH(nullptr)
}

int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl) {
  ARMCI_API_TRY
  const char* call = "ARMCIX_Destroy_mutexes_hdl";
  Runtime& r = checked_rt(call);
  std::unique_ptr<armcix_mutex_hdl_s> h(checked_hdl(hdl, call));
  return h->set.destroy(r, call);
  ARMCI_API_CATCH(kErrBadArg)
}

void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc) {
  ARMCI_API_TRY
  const char* call = "ARMCIX_Lock_hdl";
  Runtime& r = checked_rt(call);
  checked_hdl(hdl, call)->set.lock(r, mutex, proc, call);
  ARMCI_API_CATCH_VOID
}

int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc) {
  ARMCI_API_TRY
  const char* call = "ARMCIX_Trylock_hdl";
  Runtime& r = checked_rt(call);
  return checked_hdl(hdl, call)->set.trylock(r, mutex, proc, call) ? 0 : 1;
  ARMCI_API_CATCH(kErrBadArg)
}

void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc) {
  ARMCI_API_TRY
  const char* call = "ARMCIX_Unlock_hdl";
  Runtime& r = checked_rt(call);
  checked_hdl(hdl, call)->set.unlock(r, mutex, proc, call);
  ARMCI_API_CATCH_VOID
}

void ARMCIX_Progress(void) {
  Runtime& r = checked_rt("ARMCIX_Progress");
  route::progress(r);
}

int ARMCIX_Profiling(void) {
  Runtime* r = Runtime::instance();
  return r && r->profile.on;
}

void ARMCIX_Profile_note(int kind, int proc, long bytes) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCIX_Profile_note");
  if (!r.profile.on) return;
  check_proc(r, "ARMCIX_Profile_note", proc);
  check_count("ARMCIX_Profile_note", "byte count", bytes);
  ProfOp op;
  switch (kind) {
    case ARMCIX_PROFILE_PUT: op = ProfOp::PutV; break;
    case ARMCIX_PROFILE_GET: op = ProfOp::GetV; break;
    case ARMCIX_PROFILE_ACC: op = ProfOp::AccV; break;
    default: bad_arg("ARMCIX_Profile_note", "kind %d is not ARMCIX_PROFILE_PUT, _GET or _ACC", kind);
  }
  r.profile.record(op, !r.topo.same_node(proc), static_cast<uint64_t>(bytes));
  ARMCI_API_CATCH_VOID
}

const char* ARMCIX_Trace_prefix(void) {
  Runtime* r = Runtime::instance();
  return r && !r->knobs.TRACE.empty() ? r->knobs.TRACE.c_str() : nullptr;
}

}  // extern "C"

#include "armci/mpi_interop.hpp"

#include <algorithm>
#include <vector>

#include "armci/armci.h"
#include "armci/profiling.hpp"
#include "armci/runtime.hpp"
#include "armci/validate.hpp"

#if ARMCI_OFI_HAVE_MPI

namespace armci {

bool mpi_usable() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

// MPI_COMM_WORLD, or the communicator given to ARMCI_Init_mpi_comm (kept on
// the world group entry).
MPI_Comm mpi_world_comm(Runtime& r) {
  auto* slot = static_cast<void**>(r.groups.mpi_comm_slot(Groups::kWorld));
  if (*slot) return *static_cast<MPI_Comm*>(*slot);
  return MPI_COMM_WORLD;
}

int mpi_comm_of(MPI_Comm base, const std::vector<int>& ranks, int tag, MPI_Comm* out) {
  MPI_Group all, sub;
  MPI_Comm_group(base, &all);
  MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &sub);
  const int rc = MPI_Comm_create_group(base, sub, tag, out);
  MPI_Group_free(&sub);
  MPI_Group_free(&all);
  return rc;
}

namespace {

MPI_Comm* make_comm(Runtime& r, ARMCI_Group g) {
  const Team& t = r.groups.team(g, "armci_group_comm");
  auto* c = new MPI_Comm(MPI_COMM_NULL);
  if (t.member()) mpi_comm_of(mpi_world_comm(r), t.members, static_cast<int>(t.ctx & 0x7fff), c);
  return c;
}

}  // namespace

void mpi_group_created(Runtime& r, ARMCI_Group g) {
  if (!mpi_usable()) return;
  auto* slot = static_cast<void**>(r.groups.mpi_comm_slot(g));
  if (slot && !*slot) *slot = make_comm(r, g);
}

// Called with a handle Groups::freeable accepted.
void mpi_group_freed(Runtime& r, ARMCI_Group g) {
  r.mpi_coll.forget(r.groups.team(g, "ARMCI_Group_free").ctx);
  auto* slot = static_cast<void**>(r.groups.mpi_comm_slot(g));
  if (!slot || !*slot) return;
  auto* c = static_cast<MPI_Comm*>(*slot);
  if (mpi_usable() && *c != MPI_COMM_NULL) MPI_Comm_free(c);
  delete c;
  *slot = nullptr;
}

}  // namespace armci

using namespace armci;

namespace {

static_assert(MPI_THREAD_SINGLE == ARMCI_THREAD_SINGLE && MPI_THREAD_FUNNELED == ARMCI_THREAD_FUNNELED &&
                  MPI_THREAD_SERIALIZED == ARMCI_THREAD_SERIALIZED &&
                  MPI_THREAD_MULTIPLE == ARMCI_THREAD_MULTIPLE,
              "ARMCI_THREAD_* must equal MPI_THREAD_*: ARMCI_Init_thread takes either");

bool g_msg_init_started_mpi = false;  // armci_msg_init started MPI, so its finalize ends it

// Makes comm's processes the ARMCI world (or counts one more init).
void init_with_comm(const char* call, MPI_Comm comm, int level) {
  if (Runtime* r = Runtime::instance()) {
    ++r->init_count;
    r->raise_thread_level(level);
    return;
  }
  if (!mpi_usable()) fatal(call, "MPI is not initialised (call MPI_Init first)");
  if (comm == MPI_COMM_NULL) bad_arg(call, "the communicator is MPI_COMM_NULL");
  int n = 0;
  MPI_Comm_size(comm, &n);
  // Launcher rank of every member = its rank in MPI_COMM_WORLD.
  std::vector<int> mine(static_cast<std::size_t>(n)), world(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) mine[static_cast<std::size_t>(i)] = i;
  MPI_Group cg, wg;
  MPI_Comm_group(comm, &cg);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_translate_ranks(cg, n, mine.data(), wg, world.data());
  MPI_Group_free(&cg);
  MPI_Group_free(&wg);
  InitOptions o;
  o.world = world;
  o.call = call;
  o.thread_level = level;
  auto* dup = new MPI_Comm;
  MPI_Comm_dup(comm, dup);
  o.mpi_world = dup;
  Runtime::create(o);
}

}  // namespace

namespace armci {

namespace {
int finalize_hook(MPI_Comm, int, void*, void*) {
  Runtime* r = Runtime::instance();
  if (!r || r->mpi_keyval < 0) return MPI_SUCCESS;  // ARMCI ended first
  r->mpi_keyval = -1;  // the attribute is being deleted: nothing to undo
  verbose(1, "MPI_Finalize: ARMCI is still initialised (%d more ARMCI_Init than ARMCI_Finalize "
          "calls): finalizing it now", r->init_count);
  r->init_count = 0;
  Runtime::destroy();
  return MPI_SUCCESS;
}
}  // namespace

void mpi_watch_finalize(Runtime& r) {
  if (!mpi_usable()) return;
  int kv = MPI_KEYVAL_INVALID;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &kv, nullptr) != MPI_SUCCESS) return;
  if (MPI_Comm_set_attr(MPI_COMM_SELF, kv, nullptr) != MPI_SUCCESS) {
    MPI_Comm_free_keyval(&kv);
    return;
  }
  r.mpi_keyval = kv;
}

void mpi_unwatch_finalize(Runtime& r) {
  int kv = r.mpi_keyval;
  if (kv < 0) return;
  r.mpi_keyval = -1;  // deleting the attribute calls the hook: make it a no-op
  if (!mpi_usable()) return;
  MPI_Comm_delete_attr(MPI_COMM_SELF, kv);
  MPI_Comm_free_keyval(&kv);
}

int mpi_thread_level() {
  if (!mpi_usable()) return -1;
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  return level;
}
}  // namespace armci

extern "C" {

// GA's contract: non-zero on success (GA_Initialize_comm tests for it).
int PARMCI_Init_mpi_comm(MPI_Comm comm) {
  ARMCI_API_TRY
  init_with_comm("ARMCI_Init_mpi_comm", comm, std::max(mpi_thread_level(), int{MPI_THREAD_SINGLE}));
  return 1;
  ARMCI_API_CATCH(0)
}

// ARMCI-MPI's contract: 0 on success, like ARMCI_Init.
int PARMCI_Init_thread_comm(int level, MPI_Comm comm) {
  ARMCI_API_TRY
  check_thread_level("ARMCI_Init_thread_comm", level);
  init_with_comm("ARMCI_Init_thread_comm", comm, level);
  return 0;
  ARMCI_API_CATCH(kErrBadArg)
}

MPI_Comm armci_group_comm(ARMCI_Group* group) {
  Runtime& r = checked_rt("armci_group_comm");
  if (!mpi_usable()) fatal("armci_group_comm", "MPI is not initialised");
  ARMCI_Group g = group ? *group : Groups::kWorld;
  if (g == Groups::kWorld) return mpi_world_comm(r);
  auto* slot = static_cast<void**>(r.groups.mpi_comm_slot(g));
  if (!slot) fatal("armci_group_comm", "group handle %d is not a valid group", g);
  if (!*slot) *slot = make_comm(r, g);  // group made before MPI_Init: members call together
  return *static_cast<MPI_Comm*>(*slot);
}

void parmci_msg_init(int* argc, char*** argv) {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) {
    MPI_Init(argc, argv);
    g_msg_init_started_mpi = true;
  }
}

// GA's classic message layer: the ARMCI world is comm's processes.  ARMCI
// starts here, and the matching armci_msg_finalize ends this start.
void parmci_msg_init_comm(MPI_Comm comm) {
  ARMCI_API_TRY
  init_with_comm("armci_msg_init_comm", comm, std::max(mpi_thread_level(), int{MPI_THREAD_SINGLE}));
  Runtime& r = rt();
  if (r.msg_layer_init) --r.init_count;  // called twice: one start to end, not two
  r.msg_layer_init = true;
  ARMCI_API_CATCH_VOID
}

void parmci_msg_finalize(void) {
  if (Runtime* r = Runtime::instance(); r && r->msg_layer_init) {
    r->msg_layer_init = false;
    PARMCI_Finalize();
  }
  int fin = 0;
  MPI_Finalized(&fin);
  if (g_msg_init_started_mpi && !fin) MPI_Finalize();
}

}  // extern "C"

// Public names (parmci.h explains the scheme).
ARMCI_WEAK_ALIAS(PARMCI_Init_mpi_comm, ARMCI_Init_mpi_comm);
ARMCI_WEAK_ALIAS(PARMCI_Init_thread_comm, ARMCI_Init_thread_comm);
ARMCI_WEAK_ALIAS(parmci_msg_init_comm, armci_msg_init_comm);

#else  // no MPI

namespace armci {
void mpi_group_created(Runtime&, ARMCI_Group) {}
void mpi_group_freed(Runtime&, ARMCI_Group) {}
int mpi_thread_level() { return -1; }
void mpi_watch_finalize(Runtime&) {}
void mpi_unwatch_finalize(Runtime&) {}
}  // namespace armci

extern "C" {
void parmci_msg_init(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
}
void parmci_msg_finalize(void) {}
}

#endif

// Public names (parmci.h explains the scheme).
ARMCI_WEAK_ALIAS(parmci_msg_init, armci_msg_init);
ARMCI_WEAK_ALIAS(parmci_msg_finalize, armci_msg_finalize);

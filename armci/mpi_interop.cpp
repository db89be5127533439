#include "armci/mpi_interop.hpp"

#include "armci_config.h"

#ifdef ARMCI_HAVE_MPI
#include <mpi.h>

#include "armci/armci_mpi.h"
#include "armci/message.h"
#include "armci/validate.hpp"

namespace armci {

namespace {

bool mpi_usable() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

// The communicator ARMCI ranks are ranks of: MPI_COMM_WORLD, or the
// communicator given to ARMCI_Init_mpi_comm (kept on the world group entry).
MPI_Comm base_comm(Runtime& r) {
  auto* slot = static_cast<void**>(r.groups.mpi_comm_slot(Groups::kWorld));
  if (*slot) return *static_cast<MPI_Comm*>(*slot);
  return MPI_COMM_WORLD;
}

MPI_Comm* make_comm(Runtime& r, ARMCI_Group g) {
  const Team& t = r.groups.team(g, "armci_group_comm");
  auto* c = new MPI_Comm(MPI_COMM_NULL);
  if (!t.member()) return c;
  MPI_Group base, sub;
  MPI_Comm_group(base_comm(r), &base);
  MPI_Group_incl(base, t.size(), t.members.data(), &sub);
  MPI_Comm_create_group(base_comm(r), sub, static_cast<int>(t.ctx & 0x7fff), c);
  MPI_Group_free(&sub);
  MPI_Group_free(&base);
  return c;
}

}  // namespace

void mpi_group_created(Runtime& r, ARMCI_Group g) {
  if (!mpi_usable()) return;
  auto* slot = static_cast<void**>(r.groups.mpi_comm_slot(g));
  if (slot && !*slot) *slot = make_comm(r, g);
}

void mpi_group_freed(Runtime& r, ARMCI_Group g) {
  auto* slot = static_cast<void**>(r.groups.mpi_comm_slot(g));
  if (!slot || !*slot) return;
  auto* c = static_cast<MPI_Comm*>(*slot);
  if (mpi_usable() && *c != MPI_COMM_NULL) MPI_Comm_free(c);
  delete c;
  *slot = nullptr;
}

}  // namespace armci

using namespace armci;

extern "C" {

int ARMCI_Init_mpi_comm(MPI_Comm comm) {
  if (Runtime* r = Runtime::instance()) {
    ++r->init_count;
    return 0;
  }
  if (!mpi_usable()) fatal("ARMCI_Init_mpi_comm", "MPI is not initialised (call MPI_Init first)");
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
  o.call = "ARMCI_Init_mpi_comm";
  Runtime& r = Runtime::create(o);
  auto* dup = new MPI_Comm;
  MPI_Comm_dup(comm, dup);
  *static_cast<void**>(r.groups.mpi_comm_slot(Groups::kWorld)) = dup;
  return 0;
}

MPI_Comm armci_group_comm(ARMCI_Group* group) {
  Runtime& r = checked_rt("armci_group_comm");
  if (!mpi_usable()) fatal("armci_group_comm", "MPI is not initialised");
  ARMCI_Group g = group ? *group : Groups::kWorld;
  if (g == Groups::kWorld) return base_comm(r);
  auto* slot = static_cast<void**>(r.groups.mpi_comm_slot(g));
  if (!slot) fatal("armci_group_comm", "group handle %d is not a valid group", g);
  if (!*slot) *slot = make_comm(r, g);  // group made before MPI_Init: members call together
  return *static_cast<MPI_Comm*>(*slot);
}

}  // extern "C"

namespace {
bool g_msg_init_started_mpi = false;  // armci_msg_init started MPI, so its finalize ends it
}

extern "C" {

void armci_msg_init(int* argc, char*** argv) {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) {
    MPI_Init(argc, argv);
    g_msg_init_started_mpi = true;
  }
}

void armci_msg_finalize(void) {
  int fin = 0;
  MPI_Finalized(&fin);
  if (g_msg_init_started_mpi && !fin) MPI_Finalize();
}

}  // extern "C"

#else  // no MPI

namespace armci {
void mpi_group_created(Runtime&, ARMCI_Group) {}
void mpi_group_freed(Runtime&, ARMCI_Group) {}
}  // namespace armci

extern "C" {
void armci_msg_init(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
}
void armci_msg_finalize(void) {}
}

#endif

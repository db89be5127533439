#include "armci/coll_mpi.hpp"

#include <atomic>
#include <climits>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "armci/message.h"
#include "armci/mpi_interop.hpp"
#include "armci/runtime.hpp"

namespace armci {

#if ARMCI_OFI_HAVE_MPI

namespace {

MPI_Datatype mpi_type(int type) {
  switch (type) {
    case ARMCI_INT: return MPI_INT;
    case ARMCI_LONG: return MPI_LONG;
    case ARMCI_LONG_LONG: return MPI_LONG_LONG;
    case ARMCI_FLOAT: return MPI_FLOAT;
    case ARMCI_DOUBLE: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
  }
}

// MPI_OP_NULL where MPI has no built-in operator for the pair (logical
// operators are defined on integers only) or no type: the caller then takes
// its own path.  absmax and absmin reach here with absolute values already
// (reduce_prepare).
MPI_Op mpi_op(ReduceOp op, int type) {
  if (mpi_type(type) == MPI_DATATYPE_NULL) return MPI_OP_NULL;
  switch (op) {
    case ReduceOp::Sum: return MPI_SUM;
    case ReduceOp::Prod: return MPI_PROD;
    case ReduceOp::Max:
    case ReduceOp::AbsMax: return MPI_MAX;
    case ReduceOp::Min:
    case ReduceOp::AbsMin: return MPI_MIN;
    case ReduceOp::BitOr: return MPI_BOR;
    case ReduceOp::BitAnd: return MPI_BAND;
    case ReduceOp::LogOr: return msg_type_is_integer(type) ? MPI_LOR : MPI_OP_NULL;
    case ReduceOp::LogAnd: return msg_type_is_integer(type) ? MPI_LAND : MPI_OP_NULL;
  }
  return MPI_OP_NULL;
}

// The tag of a communicator's creation: threads of one process may create
// several at once (collectives of different teams), and the tag keeps
// their creations apart.  The communicators themselves are new contexts:
// their messages never meet the application's.
// MPI counts are ints: larger transfers (an allgather's broadcast of every
// member's part) take our own path.
constexpr std::size_t kMaxCount = static_cast<std::size_t>(INT_MAX);

int create_tag(uint32_t ctx, int anchor) {
  return static_cast<int>((ctx * 2654435761u + static_cast<uint32_t>(anchor + 1) * 40503u) & 0x7fffu);
}

}  // namespace

// One communicator per (team context, anchor), made by its members the
// first time they meet in it.  Made outside the lock: a thread that waits
// in a creation must not stop another thread of this process from reaching
// a collective the first one's peers wait in.
struct MpiColl::Comms {
  MPI_Comm world = MPI_COMM_NULL;
  struct Entry {
    std::vector<int> members;
    MPI_Comm comm = MPI_COMM_NULL;
  };
  std::mutex mu;  // taken only when threaded
  bool threaded = false;
  std::map<std::pair<uint32_t, int>, Entry> by_key;
  std::atomic<uint64_t> steps{0};

  MPI_Comm comm_for(const Team& t, int anchor) {
    const std::pair<uint32_t, int> key{t.ctx, anchor};
    {
      std::unique_lock<std::mutex> g(mu, std::defer_lock);
      if (threaded) g.lock();
      auto it = by_key.find(key);
      if (it != by_key.end()) {
        if (it->second.members != t.members)
          fatal("collective", "internal: context %u (anchor %d) names two member lists", t.ctx, anchor);
        return it->second.comm;
      }
    }
    MPI_Comm c = MPI_COMM_NULL;
    const int rc = mpi_comm_of(world, t.members, create_tag(t.ctx, anchor), &c);
    if (rc != MPI_SUCCESS || c == MPI_COMM_NULL)
      fatal("collective", "MPI_Comm_create_group for %d processes failed (%d)", t.size(), rc);
    std::lock_guard<std::mutex> g(mu);
    by_key[key] = Entry{t.members, c};
    return c;
  }

  // A statistic, bumped by the collective's own thread: no locked add.
  void count_step() { steps.store(steps.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

  template <typename Pick>
  void free_where(Pick pick) {
    std::lock_guard<std::mutex> g(mu);
    for (auto it = by_key.begin(); it != by_key.end();) {
      if (!pick(it->first.first)) {
        ++it;
        continue;
      }
      if (mpi_usable()) MPI_Comm_free(&it->second.comm);
      it = by_key.erase(it);
    }
  }
};

MpiColl::MpiColl() : comms_(std::make_unique<Comms>()) {}
MpiColl::~MpiColl() = default;

void MpiColl::start(Runtime& rt) {
  on_.store(false, std::memory_order_relaxed);
  const std::string& how = rt.knobs.COLL_MPI;
  if (how != "auto" && how != "1" && how != "0")
    fatal("ARMCI_Init", "ARMCI_COLL_MPI=\"%s\" is not auto, 1 or 0", how.c_str());
  if (!rt.multi_node || !mpi_usable()) return;
  // A communicator of our own over ARMCI's world: the agreement below and
  // every creation of ours stay out of the application's (its
  // MPI_COMM_WORLD, under plain ARMCI_Init).
  MPI_Comm_dup(mpi_world_comm(rt), &comms_->world);
  int rank = -1, size = 0;
  MPI_Comm_rank(comms_->world, &rank);
  MPI_Comm_size(comms_->world, &size);
  // Every process must say yes, or none takes MPI's path.  MPI's waits
  // poll: where a host has more processes than CPUs they take the core from
  // the process waited for (4 processes on 2 vnodes of 2 cores: barrier 23
  // us with MPI between the leaders, 18 us on our own messages, which sleep).
  const char* no = how == "0"                              ? "ARMCI_COLL_MPI=0"
                   : how == "auto" && rt.host_oversubscribed() ? "more processes than CPUs on this host"
                   : rt.thread_level > mpi_thread_level()  ? "ARMCI's thread level is above MPI's"
                   : rank != rt.me() || size != rt.nprocs() ? "ARMCI's ranks are not the MPI communicator's"
                                                           : nullptr;
  int yes = no == nullptr;
  MPI_Allreduce(MPI_IN_PLACE, &yes, 1, MPI_INT, MPI_MIN, comms_->world);
  on_.store(yes != 0, std::memory_order_relaxed);
  verbose(1, "collectives: steps between nodes on %s%s%s", on() ? "MPI" : "our own messages",
          on() ? "" : no ? ": " : " (another process said no)", on() ? "" : no ? no : "");
}

void MpiColl::set_threaded(bool on) { comms_->threaded = on; }

void MpiColl::stop() {
  on_.store(false, std::memory_order_relaxed);
  comms_->free_where([](uint32_t) { return true; });
  if (comms_->world != MPI_COMM_NULL && mpi_usable()) MPI_Comm_free(&comms_->world);
  comms_->world = MPI_COMM_NULL;
}

// ARMCI_Init_thread raises the level on each process that calls it; a
// program raises it on all of them (or their collectives would take
// different paths and wait for each other).
void MpiColl::thread_level_raised(int level) {
  if (on() && level > mpi_thread_level()) {
    verbose(1, "collectives: ARMCI thread level %d is above MPI's: steps between nodes on our own messages", level);
    on_.store(false, std::memory_order_relaxed);
  }
}

// A group's scopes (node, masters) derive their contexts from its own.
void MpiColl::forget(uint32_t ctx) {
  comms_->free_where([ctx](uint32_t have) { return (have & ~3u) == (ctx & ~3u); });
}

uint64_t MpiColl::steps() const { return comms_->steps.load(std::memory_order_relaxed); }

bool MpiColl::barrier(const Team& t, int anchor) {
  if (!on()) return false;
  comms_->count_step();
  MPI_Barrier(comms_->comm_for(t, anchor));
  return true;
}

bool MpiColl::bcast(const Team& t, int anchor, int root, void* buf, std::size_t len) {
  if (!on() || len > kMaxCount) return false;
  comms_->count_step();
  MPI_Bcast(buf, static_cast<int>(len), MPI_BYTE, root, comms_->comm_for(t, anchor));
  return true;
}

bool MpiColl::reduce(const Team& t, int anchor, int root, void* buf, std::size_t n, int type, ReduceOp op) {
  const MPI_Op o = mpi_op(op, type);
  if (!on() || o == MPI_OP_NULL || n > kMaxCount) return false;
  comms_->count_step();
  const MPI_Comm c = comms_->comm_for(t, anchor);
  const int count = static_cast<int>(n);
  if (t.me == root) MPI_Reduce(MPI_IN_PLACE, buf, count, mpi_type(type), o, root, c);
  else MPI_Reduce(buf, nullptr, count, mpi_type(type), o, root, c);
  return true;
}

bool MpiColl::allreduce(const Team& t, int anchor, void* buf, std::size_t n, int type, ReduceOp op) {
  const MPI_Op o = mpi_op(op, type);
  if (!on() || o == MPI_OP_NULL || n > kMaxCount) return false;
  comms_->count_step();
  MPI_Allreduce(MPI_IN_PLACE, buf, static_cast<int>(n), mpi_type(type), o, comms_->comm_for(t, anchor));
  return true;
}

#else  // built without MPI: every step is ours

struct MpiColl::Comms {};
MpiColl::MpiColl() = default;
MpiColl::~MpiColl() = default;
void MpiColl::start(Runtime&) {}
void MpiColl::stop() {}
void MpiColl::thread_level_raised(int) {}
void MpiColl::set_threaded(bool) {}
void MpiColl::forget(uint32_t) {}
uint64_t MpiColl::steps() const { return 0; }
bool MpiColl::barrier(const Team&, int) { return false; }
bool MpiColl::bcast(const Team&, int, int, void*, std::size_t) { return false; }
bool MpiColl::reduce(const Team&, int, int, void*, std::size_t, int, ReduceOp) { return false; }
bool MpiColl::allreduce(const Team&, int, void*, std::size_t, int, ReduceOp) { return false; }

#endif

}  // namespace armci

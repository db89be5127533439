// Jobs that fail on purpose, for tests/checks/crash_check.sh.
//
//   crash_victim crash FAULT PHASE   every process runs PHASE in a loop; the
//       last one (or, with CRASH_VICTIM=agent, the process serving the last
//       node's agent) dies of FAULT (kill: SIGKILL, abort: abort(), segv: a
//       store through a null pointer) in the middle of it.  PHASE: put, get,
//       acc, rmw, lock (it dies holding the lock the others wait for),
//       barrier, merge (GA_Merge_mirrored).
//   crash_victim bad CASE            the last process makes one bad call in
//       the default abort mode (cases in bad_call below).
//   crash_victim mismatch            process 0 calls ARMCI_Free while the
//       others call ARMCI_Barrier.
//   crash_victim preinit             ARMCI_Put before ARMCI_Init.
//
// The survivors must never get past the loop: if the job is not ended for
// them they run on for a minute, then say so ("outlived") and fail.
#include <signal.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "armci.h"
#include "ga/ga.h"
#include "message.h"

namespace {

int me = 0, nproc = 1;

[[noreturn]] void die(const char* fault) {
  std::fprintf(stderr, "crash_victim: process %d dies (%s)\n", me, fault);
  if (!std::strcmp(fault, "abort")) std::abort();
  if (!std::strcmp(fault, "segv")) {
    volatile int* nowhere = nullptr;
    *nowhere = 1;
  }
  kill(getpid(), SIGKILL);
  for (;;) pause();
}

// Which process dies: the last, or the lowest of the last node (its agent).
int victim() {
  const char* who = std::getenv("CRASH_VICTIM");
  if (who && !std::strcmp(who, "agent")) {
    const int last_node = armci_domain_id(ARMCI_DOMAIN_SMP, nproc - 1);
    return armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, last_node, 0);
  }
  return nproc - 1;
}

void crash(const char* fault, const char* phase) {
  const int bytes = 64 << 10;
  std::vector<void*> p(static_cast<std::size_t>(nproc));
  ARMCI_Malloc(p.data(), bytes);
  std::memset(p[static_cast<std::size_t>(me)], 0, bytes);
  ARMCI_Create_mutexes(1);
  const bool merge = !std::strcmp(phase, "merge");
  int g = 0;
  if (merge) {
    GA_Initialize();
    int dims[2] = {256, 256};
    char name[] = "mirrored";
    g = NGA_Create_config(C_DBL, 2, dims, name, nullptr, GA_Pgroup_get_mirror());
    GA_Zero(g);
  }
  ARMCI_Barrier();
  const int dies = victim(), to = (me + 1) % nproc;
  std::vector<double> buf(static_cast<std::size_t>(bytes) / sizeof(double), 1.0);
  const double t0 = armci_timer(), dead_at = t0 + 0.5;
  double one = 1.0;
  for (long i = 0; armci_timer() - t0 < 60; ++i) {
    const bool now = me == dies && armci_timer() > dead_at;
    if (!std::strcmp(phase, "put")) {
      ARMCI_NbPut(buf.data(), p[static_cast<std::size_t>(to)], bytes, to, nullptr);
      if (now) die(fault);  // with puts in flight
      ARMCI_Fence(to);
    } else if (!std::strcmp(phase, "get")) {
      armci_hdl_t h;
      ARMCI_INIT_HANDLE(&h);
      ARMCI_NbGet(p[static_cast<std::size_t>(to)], buf.data(), bytes, to, &h);
      if (now) die(fault);
      ARMCI_Wait(&h);
    } else if (!std::strcmp(phase, "acc")) {
      if (now) die(fault);
      ARMCI_Acc(ARMCI_ACC_DBL, &one, buf.data(), p[static_cast<std::size_t>(to)], bytes, to);
    } else if (!std::strcmp(phase, "rmw")) {
      if (now) die(fault);
      int old = 0;
      ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, p[0], 1, 0);
    } else if (!std::strcmp(phase, "lock")) {
      ARMCI_Lock(0, 0);
      if (now) die(fault);  // holding the lock everyone else waits for
      ARMCI_Unlock(0, 0);
    } else if (!std::strcmp(phase, "barrier")) {
      if (now) die(fault);
      ARMCI_Barrier();
    } else if (!std::strcmp(phase, "merge")) {
      if (now) die(fault);
      int lo[2] = {static_cast<int>(i % 256), 0}, hi[2] = {static_cast<int>(i % 256), 255}, ld[1] = {256};
      NGA_Acc(g, lo, hi, buf.data(), ld, &one);
      GA_Merge_mirrored(g);
    } else {
      std::fprintf(stderr, "crash_victim: unknown phase %s\n", phase);
      std::exit(2);
    }
  }
  std::fprintf(stderr, "crash_victim: process %d outlived process %d by a minute (%s during %s)\n", me,
               dies, fault, phase);
  std::exit(4);
}

// One bad call by the last process; the others wait in a barrier that the
// abort must end.
void bad_call(const char* what) {
  std::vector<void*> p(static_cast<std::size_t>(nproc)), q(p.size());
  ARMCI_Malloc(p.data(), 4096);
  ARMCI_Malloc(q.data(), 4096);
  ARMCI_Free(q[static_cast<std::size_t>(me)]);  // q[0] is a freed block now
  ARMCI_Barrier();
  if (me == nproc - 1) {
    int buf[1024] = {};
    char* t = static_cast<char*>(p[0]);
    std::fprintf(stderr, "crash_victim: process %d makes a bad call (%s)\n", me, what);
    if (!std::strcmp(what, "proc")) {
      ARMCI_Put(buf, t, 4, nproc + 3);
    } else if (!std::strcmp(what, "outside")) {
      ARMCI_Put(buf, t + 4000, 200, 0);
    } else if (!std::strcmp(what, "stack")) {
      ARMCI_Get(buf, buf + 8, 16, 0);
    } else if (!std::strcmp(what, "neighbour")) {
      ARMCI_Put(buf, p[1], 8, 0);  // process 1's block named as process 0's
    } else if (!std::strcmp(what, "freed")) {
      ARMCI_Put(buf, q[0], 8, 0);
    } else if (!std::strcmp(what, "overflow")) {
      int cnt[9] = {4, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX};
      int st[8] = {1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30};
      ARMCI_PutS(buf, st, t, st, cnt, 8, 0);
    } else if (!std::strcmp(what, "stride")) {
      int cnt[2] = {16, 4}, st[1] = {8};
      ARMCI_PutS(buf, st, t, st, cnt, 1, 0);
    } else if (!std::strcmp(what, "overlap")) {
      void* l[2] = {buf, buf + 8};
      void* r[2] = {t, t + 4};
      armci_giov_t d = {l, r, 2, 8};
      ARMCI_PutV(&d, 1, 0);
    } else if (!std::strcmp(what, "levels")) {
      int cnt[2] = {16, 4}, st[1] = {16};
      ARMCI_GetS(t, st, buf, st, cnt, 9, 0);
    } else if (!std::strcmp(what, "acctype")) {
      int one = 1;
      ARMCI_Acc(99, &one, buf, t, 16, 0);
    } else if (!std::strcmp(what, "group")) {
      ARMCI_Group g = 4242;
      ARMCI_Group_set_default(&g);
    } else {
      std::fprintf(stderr, "crash_victim: unknown bad call %s\n", what);
      std::exit(2);
    }
    std::fprintf(stderr, "crash_victim: process %d survived its bad call\n", me);
    std::exit(3);
  }
  ARMCI_Barrier();
  std::fprintf(stderr, "crash_victim: process %d outlived a bad call\n", me);
  std::exit(4);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "preinit") {
    int v = 0;
    return ARMCI_Put(&v, &v, 4, 0) == 0 ? 3 : 1;
  }
  ARMCI_Init();
  me = armci_msg_me();
  nproc = armci_msg_nproc();
  if (mode == "crash" && argc > 3) crash(argv[2], argv[3]);
  if (mode == "bad" && argc > 2) bad_call(argv[2]);
  if (mode == "mismatch") {
    std::vector<void*> p(static_cast<std::size_t>(nproc));
    ARMCI_Malloc(p.data(), 4096);
    if (me == 0) ARMCI_Free(p[0]);
    else ARMCI_Barrier();
    std::fprintf(stderr, "crash_victim: process %d got past a mismatched collective\n", me);
    return 4;
  }
  std::fprintf(stderr, "usage: crash_victim crash FAULT PHASE | bad CASE | mismatch | preinit\n");
  return 2;
}

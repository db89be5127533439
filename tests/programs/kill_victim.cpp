// A job that goes wrong on purpose, for tests/checks/kill_check.sh.  After
// ARMCI_Init, an ARMCI_Malloc and a barrier, the last rank
//   kill    : kills itself with SIGKILL (no chance to clean up)
//   badarg  : calls ARMCI_Put with a bad process id (default: abort mode)
//   error   : calls ARMCI_Error
//   abort   : calls armci_msg_abort
// while the other ranks wait in a barrier that can never complete: the job
// must end by itself.  "stop" (run with ARMCI_VNODES=2) instead freezes
// rank 2, whose process serves node 1 to the network, and rank 0 keeps
// putting to it: the puts must give up in bounded time naming the peer.
// "msginit" runs armci_msg_init/_finalize around a normal ARMCI session and
// must succeed.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "armci.h"
#include "message.h"

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "kill";
  const bool msginit = std::strcmp(mode, "msginit") == 0;
  if (msginit) armci_msg_init(&argc, &argv);
  ARMCI_Init();
  const int me = armci_msg_me(), n = armci_msg_nproc();
  std::vector<void*> p(static_cast<std::size_t>(n));
  ARMCI_Malloc(p.data(), 1 << 20);
  ARMCI_Barrier();
  if (msginit) {
    int x = 1;
    armci_msg_igop(&x, 1, const_cast<char*>("+"));
    ARMCI_Free(p[static_cast<std::size_t>(me)]);
    ARMCI_Finalize();
    armci_msg_finalize();
    if (me == 0) std::printf("msginit ok: %d processes\n", x);
    return x == n ? 0 : 1;
  }
  const bool stop = std::strcmp(mode, "stop") == 0;
  if (stop) {
    if (me == 2) {
      std::fprintf(stderr, "kill_victim: rank 2 stops (SIGSTOP)\n");
      raise(SIGSTOP);
      return 3;
    }
    if (me == 0) {
      sleep(1);  // let rank 2 stop first
      std::vector<char> buf(64 << 10, 1);
      for (int i = 0; i < 100000; ++i)
        ARMCI_NbPut(buf.data(), p[2], static_cast<int>(buf.size()), 2, nullptr);
      ARMCI_Fence(2);
      std::fprintf(stderr, "kill_victim: rank 0 survived its own stop\n");
      return 3;
    }
  }
  if (me == n - 1 && !stop) {
    std::fprintf(stderr, "kill_victim: rank %d goes wrong (%s)\n", me, mode);
    if (std::strcmp(mode, "badarg") == 0) {
      int v = 0;
      ARMCI_Put(&v, p[0], 4, n + 3);
    } else if (std::strcmp(mode, "error") == 0) {
      ARMCI_Error("kill_victim deliberate error", 7);
    } else if (std::strcmp(mode, "abort") == 0) {
      armci_msg_abort(9);
    } else {
      kill(getpid(), SIGKILL);
    }
    std::fprintf(stderr, "kill_victim: rank %d survived its own %s\n", me, mode);
    return 3;
  }
  ARMCI_Barrier();  // never completes: the last rank is gone
  std::fprintf(stderr, "kill_victim: rank %d left a barrier it should not have\n", me);
  return 4;
}

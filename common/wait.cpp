#include "common/wait.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <thread>

#include "common/cpu_pressure.hpp"
#include "common/log.hpp"

namespace armci {

namespace {
const WaitPolicy kDefaultWait{};
const WaitPolicy* g_policy = nullptr;  // the runtime's, set by it
}  // namespace

const WaitPolicy& wait_policy() { return g_policy ? *g_policy : kDefaultWait; }
void install_wait_policy(const WaitPolicy* p) { g_policy = p; }


bool futex_wait(const std::atomic<uint32_t>* word, uint32_t expected, double timeout_s) {
  struct timespec ts;
  struct timespec* tsp = nullptr;
  if (timeout_s > 0) {
    ts.tv_sec = static_cast<time_t>(timeout_s);
    ts.tv_nsec = static_cast<long>((timeout_s - std::floor(timeout_s)) * 1e9);
    tsp = &ts;
  }
  // Not FUTEX_PRIVATE: the word may be in memory shared with other processes.
  long rc = syscall(SYS_futex, reinterpret_cast<const uint32_t*>(word), FUTEX_WAIT, expected,
                    tsp, nullptr, 0);
  return !(rc == -1 && errno == ETIMEDOUT);
}

void futex_wake(const std::atomic<uint32_t>* word, int count) {
  syscall(SYS_futex, reinterpret_cast<const uint32_t*>(word), FUTEX_WAKE, count, nullptr,
          nullptr, 0);
}

void sched_yield_hint() { sched_yield(); }

unsigned yield_every_now(const WaitPolicy& p) {
  if (p.yield_every <= 1) return 1;
  thread_local CpuPressure load;
  load.refresh(std::chrono::steady_clock::now());
  return load.contested() ? 1 : p.yield_every;
}

void block_briefly() { std::this_thread::sleep_for(std::chrono::microseconds(50)); }

void wait_timed_out(const char* call, const char* what, double seconds) {
  fatal(call, "gave up after %.0f s waiting for %s (ARMCI_TIMEOUT; a peer may have hung or died)",
        seconds, what);
}

WaitWatch::WaitWatch(const char* call, const char* what)
    : call_(call), what_(what), start_(std::chrono::steady_clock::now()), last_check_(start_) {}

double WaitWatch::waited() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void WaitWatch::check() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_check_ < std::chrono::milliseconds(200)) return;
  last_check_ = now;
  const WaitPolicy& p = wait_policy();
  if (p.check_health) p.check_health();
  const double waited = std::chrono::duration<double>(now - start_).count();
  if (p.timeout_s > 0 && waited > p.timeout_s) wait_timed_out(call_, what_, waited);
}

void Backoff::pause() {
  const WaitPolicy& p = wait_policy();
  ++spins_;
  const auto now = std::chrono::steady_clock::now();
  if (progressed_) {
    quiet_since_ = now;
    progressed_ = false;
  }
  const double waited = std::chrono::duration<double>(now - quiet_since_).count();
  if (waited * 1e6 < static_cast<double>(p.spin_us)) {
    if (spins_ % every_ == 0) sched_yield();
    watch_.check();  // a wait that keeps making progress still times out
    return;
  }
  // Past the spin window: give the core away now and then (a caller that
  // drives a network between pauses must keep doing so; on a contested
  // host after every poll, as in the window), and sleep once the wait
  // passes a millisecond.  A yield does not hand the core to another
  // scheduling group: with processes grouped by session (autogroup; Slurm's
  // slurmd per namespace host, Linux 6.18 here) a longer yield-only phase
  // kept other hosts' agents waiting (test_threads under srun on 3 hosts:
  // 4.5 -> 2.9 s per run with 1 ms instead of 10).
  if (waited < 0.001) {
    if (spins_ % std::min(every_, 8u) == 0) sched_yield();
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(waited < 0.1 ? 50 : 1000));
  }
  watch_.check();
}

}  // namespace armci

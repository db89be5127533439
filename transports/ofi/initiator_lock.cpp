#include "transports/ofi/initiator_lock.hpp"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "common/log.hpp"

// ThreadSanitizer cannot see the order membarrier gives: it would report
// every biased section as a race.  Its builds take the mutex instead.
#if defined(__SANITIZE_THREAD__)
#define ARMCI_NO_BIASED_LOCK 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ARMCI_NO_BIASED_LOCK 1
#endif
#endif

namespace armci::transport {

namespace {

thread_local bool t_visiting = false;

long membarrier(int cmd) { return syscall(__NR_membarrier, cmd, 0, 0); }

// The expedited private barrier interrupts only this process's CPUs; it
// must be registered once per process.  Kernels without it (before 4.14,
// or a sandbox that filters the call) leave the mutex in use.
bool barrier_available() {
#ifdef ARMCI_NO_BIASED_LOCK
  return false;
#else
  static const bool ok = [] {
    const long cmds = membarrier(MEMBARRIER_CMD_QUERY);
    return cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
           membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
  }();
  return ok;
#endif
}

}  // namespace

void InitiatorLock::configure(bool app_threads, bool timer) {
  const Mode m = app_threads ? Mode::Mutex : !timer ? Mode::None : barrier_available() ? Mode::Biased : Mode::Mutex;
  // Under the mutex: a timer inside its section finishes under the mode it
  // entered with.
  std::lock_guard<std::mutex> g(mu_);
  app_threads_ = app_threads;
  timer_ = timer;
  mode_.store(m, std::memory_order_relaxed);
}

void InitiatorLock::lock_slow() {
  busy_.store(false, std::memory_order_release);
  mu_.lock();  // the timer holds it while inside
  app_holds_mutex_ = true;
}

bool InitiatorLock::enter_as_visitor() {
  if (mode_.load(std::memory_order_relaxed) != Mode::Biased) return true;
  visitor_.store(true, std::memory_order_relaxed);
  if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
    fatal("ARMCI", "membarrier failed after it was registered: %s", std::strerror(errno));
  if (busy_.load(std::memory_order_relaxed)) {
    visitor_.store(false, std::memory_order_release);
    return false;
  }
  std::atomic_thread_fence(std::memory_order_acquire);  // pairs with unlock's release
  return true;
}

bool InitiatorLock::visitor_try_lock() {
  if (!mu_.try_lock()) return false;
  if (!enter_as_visitor()) {
    mu_.unlock();
    return false;
  }
  t_visiting = true;
  return true;
}

void InitiatorLock::visitor_lock() {
  for (;;) {
    mu_.lock();
    if (enter_as_visitor()) break;
    mu_.unlock();
    std::this_thread::yield();  // the application is inside: let it finish
  }
  t_visiting = true;
}

void InitiatorLock::visitor_unlock() {
  t_visiting = false;
  visitor_.store(false, std::memory_order_release);
  mu_.unlock();
}

bool InitiatorLock::visiting() { return t_visiting; }

}  // namespace armci::transport

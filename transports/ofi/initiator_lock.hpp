// The initiator's lock.  Three modes, set by the thread level and by
// whether the coalescing timer runs:
//   none:   one application thread and no timer: nothing to exclude.
//   mutex:  ARMCI_THREAD_MULTIPLE: every caller takes the mutex.
//   biased: one application thread at a time plus the timer.  The
//           application's side is a flag store and a load (no atomic
//           read-modify-write: the mutex pair cost 14 ns of the 25 ns an
//           8 B coalesced put took across nodes); the rare side, the
//           timer, pays a process-wide barrier (membarrier) instead.
// The biased handshake is the asymmetric form of Dekker's: the application
// stores `busy` then loads `visitor`; the timer stores `visitor`, runs the
// barrier (a full fence on every thread of the process), then loads
// `busy`.  One of them sees the other's store.
#pragma once
#include <atomic>
#include <mutex>

namespace armci::transport {

class InitiatorLock {
 public:
  enum class Mode { None, Mutex, Biased };
  // From the application thread, outside any critical section: whether
  // several application threads may call at once (ARMCI_THREAD_MULTIPLE),
  // and whether the coalescing timer runs.
  void set_app_threads(bool on) { configure(on, timer_); }
  void set_timer(bool on) { configure(app_threads_, on); }
  Mode mode() const { return mode_.load(std::memory_order_relaxed); }
  bool locking() const { return mode() != Mode::None; }

  // Application threads.
  void lock() {
    switch (mode_.load(std::memory_order_relaxed)) {
      case Mode::None: return;
      case Mode::Mutex: mu_.lock(); return;
      case Mode::Biased: break;
    }
    busy_.store(true, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the timer's barrier orders this store before the load
    if (__builtin_expect(!visitor_.load(std::memory_order_acquire), 1)) return;
    lock_slow();
  }
  void unlock() {
    switch (mode_.load(std::memory_order_relaxed)) {
      case Mode::None: return;
      case Mode::Mutex: mu_.unlock(); return;
      case Mode::Biased: break;
    }
    if (app_holds_mutex_) {
      app_holds_mutex_ = false;
      mu_.unlock();
      return;
    }
    busy_.store(false, std::memory_order_release);
  }

  // The timer: never queues behind the application (a waiter would turn
  // each of its unlocks into a system call).  False: busy, look later.
  bool visitor_try_lock();
  void visitor_lock();  // after letting go inside its critical section
  void visitor_unlock();
  // Whether this thread is the visitor inside its critical section.
  static bool visiting();
  // Runs f (a pause, a yield) with the lock let go, whichever side holds it.
  template <typename F>
  void unlocked(F&& f) {
    if (!locking()) return f();
    const bool visitor = visiting();
    visitor ? visitor_unlock() : unlock();
    f();
    visitor ? visitor_lock() : lock();
  }

 private:
  void configure(bool app_threads, bool timer);
  void lock_slow();
  bool enter_as_visitor();  // mu_ held; false if the application is in
  std::atomic<Mode> mode_{Mode::None};
  std::mutex mu_;
  std::atomic<bool> busy_{false};     // the application is inside (biased)
  std::atomic<bool> visitor_{false};  // the timer is inside or entering
  bool app_holds_mutex_ = false;      // biased: this entry went the slow way
  bool app_threads_ = false, timer_ = false;  // what configure was last told
};

}  // namespace armci::transport

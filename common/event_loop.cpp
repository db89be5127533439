#include "common/event_loop.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <thread>

#include "common/log.hpp"

namespace armci {

namespace {
// The longest sleep even when every poller promised its fd would signal:
// a provider that misses a wake-up then costs this, never a hang.
constexpr int kLongestSleepMs = 100;
}  // namespace

EventLoop::EventLoop(const Policy& p)
    : poll_us_(p.poll_us),
      idle_poll_us_(p.idle_poll_us),
      contested_poll_us_(p.contested_poll_us),
      pressure_(p.yield_when_contested && p.poll_us > 0 ? p.loadavg : nullptr) {  // no file: never contested
  ep_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (ep_ < 0 || wake_fd_ < 0) fatal("ARMCI_Init", "epoll/eventfd: %s", std::strerror(errno));
  add_fd(wake_fd_, EPOLLIN, [this](uint32_t) {
    uint64_t v;
    while (read(wake_fd_, &v, sizeof v) > 0) {
    }
    return true;
  });
}

EventLoop::~EventLoop() {
  if (thread_.joinable()) stop();
  close(wake_fd_);
  close(ep_);
}

void EventLoop::add_fd(int fd, uint32_t events, FdHandler h) {
  handlers_[fd] = std::move(h);
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  if (epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev) != 0)
    fatal("node agent", "epoll_ctl(ADD %d): %s", fd, std::strerror(errno));
}

void EventLoop::remove_fd(int fd) {
  epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
  handlers_.erase(fd);
}

void EventLoop::add_poller(Poller p, TryWait t) { pollers_.emplace_back(std::move(p), std::move(t)); }

void EventLoop::post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> g(tasks_mu_);
    tasks_.push_back(std::move(task));
  }
  uint64_t one = 1;
  ssize_t unused = write(wake_fd_, &one, sizeof one);
  (void)unused;
}

void EventLoop::call(const std::function<void()>& task) {
  if (!thread_.joinable() || in_loop_thread()) {
    task();
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  post([&] {
    task();
    std::lock_guard<std::mutex> g(mu);
    done = true;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> lk(mu);
  cv.wait(lk, [&] { return done; });
}

void EventLoop::drain_tasks() {
  std::vector<std::function<void()>> todo;
  {
    std::lock_guard<std::mutex> g(tasks_mu_);
    todo.swap(tasks_);
  }
  for (auto& t : todo) t();
}

void EventLoop::start(const char* name) {
  thread_ = std::thread([this] { run(); });
  pthread_setname_np(thread_.native_handle(), name);
}

void EventLoop::stop() {
  stop_.store(true);
  post([] {});
  if (thread_.joinable()) thread_.join();
}

void EventLoop::run() {
  // Naps of tens of microseconds (idle_poll_us) would otherwise last the
  // default 50 us timer slack longer.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  using clock = std::chrono::steady_clock;
  auto busy_until = clock::now();
  // The poll window after work: poll_us, or contested_poll_us while another
  // thread wants a core (the answer cached when the loop last went idle or
  // checked while polling: reading it here would delay the event's own
  // progress).  A contested window yields after every empty poll: the next
  // request of a busy job usually comes within tens of microseconds, and
  // catching it there costs a yield where sleeping costs a wake-up (GA's
  // nga-scatter.x, 4 processes on 2 virtual nodes and 2 cores: 66 -> 60 s
  // with 30 us).
  bool short_window = false;
  auto window_end = [&](clock::time_point now) {
    short_window = pressure_.contested();
    if (short_window) {
      ++contested_skips_;
      return now + std::chrono::microseconds(contested_poll_us_);
    }
    ++poll_windows_;
    return now + std::chrono::microseconds(poll_us_);
  };
  epoll_event evs[32];
  unsigned iter = 0, idle = 0;
  bool timed_out = false;  // the last sleep was a promised one that ran out
  while (!stop_.load(std::memory_order_acquire)) {
    ++iterations_;
    bool worked = false;
    for (auto& [p, t] : pollers_) worked |= p();
    if (timed_out && worked && ++missed_wakeups_ == 1)
      verbose(1, "node agent: woke without its fd's signal and found work (the provider missed a wake-up)");
    timed_out = false;
    auto now = clock::now();
    if (worked) {
      busy_until = window_end(now);
      idle = 0;
    }
    int timeout_ms = 0;
    bool napped = false;    // slept before this epoll_wait rather than in it
    bool promised = false;  // every poller's fd will signal new work
    if (now < busy_until) {
      // Busy: keep polling the pollers; look at the other fds (control
      // sockets, posted tasks) only now and then, and let a process that
      // shares our core run when there is nothing to do (at once when the
      // machine is contested).
      if ((++iter & 63) != 0) {
        if (!worked && (short_window || (++idle & 63) == 0)) sched_yield();
        continue;
      }
      // A window opened on a quiet machine ends once other threads want the
      // cores: a burst of work elsewhere would otherwise wait a whole window.
      pressure_.refresh(now);
      if (!short_window && pressure_.contested()) {
        busy_until = std::min(busy_until, now + std::chrono::microseconds(contested_poll_us_));
        short_window = true;
        ++cut_windows_;
      }
    } else {
      // Idle: sleep until an fd fires, but only if every poller agrees that
      // its fd will signal new work (fi_trywait), else poll again soon.
      // Providers that never agree (shm, udp;ofi_rxd) move one-sided RMA
      // only while polled and leave no completion here to count as work: a
      // millisecond between looks would add a millisecond to their RMA.
      pressure_.refresh(now);  // going idle: its few microseconds cost no event anything
      bool can_sleep = true;
      for (auto& [p, t] : pollers_)
        if (t && !t()) can_sleep = false;
      ++(can_sleep ? sleeps_ : refused_sleeps_);
      if (can_sleep) {
        timeout_ms = kLongestSleepMs;
        promised = true;
      } else if (idle_poll_us_ >= 1000) {
        timeout_ms = static_cast<int>(idle_poll_us_ / 1000);
      } else {
        if (idle_poll_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(idle_poll_us_));
        else sched_yield();
        napped = true;
      }
    }
    int n = epoll_wait(ep_, evs, 32, timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      fatal("node agent", "epoll_wait: %s", std::strerror(errno));
    }
    timed_out = promised && n == 0;
    const bool slept = timeout_ms != 0 || napped;
    if (slept) wakeups_.fetch_add(1, std::memory_order_relaxed);
    bool fd_work = false;
    for (int i = 0; i < n; ++i) {
      auto it = handlers_.find(evs[i].data.fd);
      if (it != handlers_.end()) {
        auto h = it->second;  // the handler may remove itself
        fd_work |= h(evs[i].events);
      }
    }
    drain_tasks();
    // Real work keeps us polling, and so does being woken from a sleep by an
    // fd: one-sided RMA into the heap leaves no completion here, only socket
    // activity, and more of it usually follows.  Readiness seen while already
    // polling does not count (a wait fd may stay readable until the next
    // fi_trywait and would keep the loop busy forever).
    if (fd_work || (slept && n > 0)) busy_until = window_end(clock::now());
  }
  drain_tasks();
}

std::string EventLoop::counters() const {
  return "iterations=" + std::to_string(iterations_) + " sleeps=" + std::to_string(sleeps_) +
         " refused_sleeps=" + std::to_string(refused_sleeps_) + " wakeups=" + std::to_string(wakeups()) +
         " poll_windows=" + std::to_string(poll_windows_) + " contested_skips=" + std::to_string(contested_skips_) +
         " cut_windows=" + std::to_string(cut_windows_) + " missed_wakeups=" + std::to_string(missed_wakeups_);
}

}  // namespace armci

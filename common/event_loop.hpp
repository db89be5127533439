// The node agent's event loop: one thread that sleeps in epoll until a file
// descriptor (control sockets, the NIC's completion queue) or a posted task
// needs it, and polls for a short while after activity.
#pragma once
#include <sys/epoll.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "common/cpu_pressure.hpp"

namespace armci {

class EventLoop {
 public:
  // Returns true if it found work (keeps the loop polling a little longer).
  using FdHandler = std::function<bool(uint32_t events)>;
  // Returns true if it found work (keeps the loop polling a little longer).
  using Poller = std::function<bool()>;
  // Returns true if it is safe to sleep in epoll (libfabric's fi_trywait).
  using TryWait = std::function<bool()>;

  struct Policy {
    long poll_us = 0;       // how long to keep polling after work
    long idle_poll_us = 0;  // how often to look when a poller cannot promise to wake the loop (fi_trywait)
    // While the machine has more runnable threads than CPUs, as `loadavg` (a
    // CpuPressure path) counts them: poll only contested_poll_us after work,
    // yielding the core after every poll that found nothing.
    bool yield_when_contested = false;
    long contested_poll_us = 0;
    const char* loadavg = "/proc/loadavg";
  };
  explicit EventLoop(const Policy& p);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Only from the loop thread, or before start().
  void add_fd(int fd, uint32_t events, FdHandler h);
  void remove_fd(int fd);
  void add_poller(Poller p, TryWait t);

  // Any thread: runs `task` on the loop thread and waits for it.
  void call(const std::function<void()>& task);
  // Any thread: runs `task` on the loop thread soon.
  void post(std::function<void()> task);

  void start(const char* name);
  void stop();  // any thread but the loop's; joins
  bool in_loop_thread() const { return std::this_thread::get_id() == thread_.get_id(); }
  unsigned long wakeups() const { return wakeups_.load(std::memory_order_relaxed); }
  // Iterations, sleeps, sleeps refused by a poller, wake-ups, and how poll
  // windows went: opened after an event, left out (contested), cut short.
  std::string counters() const;
  unsigned long contested_skips() const { return contested_skips_; }  // after stop()
  unsigned long missed_wakeups() const { return missed_wakeups_; }    // after stop()
  unsigned long cut_windows() const { return cut_windows_; }

 private:
  void run();
  void drain_tasks();
  int ep_ = -1;
  int wake_fd_ = -1;
  long poll_us_, idle_poll_us_, contested_poll_us_;
  CpuPressure pressure_;
  unsigned long poll_windows_ = 0, contested_skips_ = 0, cut_windows_ = 0;
  std::map<int, FdHandler> handlers_;
  std::vector<std::pair<Poller, TryWait>> pollers_;
  std::mutex tasks_mu_;
  std::vector<std::function<void()>> tasks_;
  std::atomic<bool> stop_{false};
  std::atomic<unsigned long> wakeups_{0};
  unsigned long iterations_ = 0, sleeps_ = 0, refused_sleeps_ = 0;
  unsigned long missed_wakeups_ = 0;  // a capped sleep ran out and the pollers then found work
  std::thread thread_;
};

}  // namespace armci

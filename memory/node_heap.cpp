#include "memory/node_heap.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/knobs.hpp"
#include "common/log.hpp"
#include "memory/heap_allocator.hpp"

namespace armci::memory {

NodeHeap::NodeHeap(const std::string& agent_socket, uint32_t local_index, NodeControl* agent_control,
                   Backing backing)
    : in_agent_process_(agent_control != nullptr), backing_(backing) {
  // The agent listens before the start-up fence, so this normally succeeds
  // at once; retry briefly for slow starts.
  for (int i = 0; i < 2000 && sock_ < 0; ++i) {
    sock_ = ctl_connect(agent_socket);
    if (sock_ < 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (sock_ < 0)
    fatal("ARMCI_Init", "cannot reach the node agent at @%s: %s", agent_socket.c_str(),
          std::strerror(errno));
  CtlMsg hello;
  hello.op = kHello;
  hello.a = local_index;
  hello.b = static_cast<uint64_t>(getpid());
  hello.c = in_agent_process_ ? 1 : 0;
  CtlMsg r;
  int fd = -1;
  if (!rpc(hello, r, &fd) || fd < 0)
    fatal("ARMCI_Init", "the node agent did not hand out the control block");
  control_ = ShmFile::adopt(fd, r.a);
  if (agent_control) {
    ctl_ = agent_control;
  } else {
    control_bytes_ = r.a;
    void* p = mmap(nullptr, control_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) fatal("ARMCI_Init", "mapping the node control block: %s", std::strerror(errno));
    ctl_ = static_cast<NodeControl*>(p);
  }
  if (ctl_->magic != kControlMagic || ctl_->version != kControlVersion)
    fatal("ARMCI_Init", "node control block has the wrong format (mixed armci-ofi versions?)");

  // Agreement on the heap address: answer proposals until the agent commits.
  for (;;) {
    CtlMsg m;
    if (!ctl_recv(sock_, m)) fatal("ARMCI_Init", "the node agent went away during start-up");
    if (m.op == kPropose) {
      CtlMsg ans;
      ans.op = kPropose;
      if (!in_agent_process_) {
        resv_ = Reservation();
        resv_ = Reservation::at(m.a, m.b);
        ans.status = resv_.valid() ? 0 : EEXIST;
      }
      ctl_send(sock_, ans);
    } else if (m.op == kCommit) {
      base_ = m.a;
      resv_size_ = m.b;
      break;
    }
  }
  mapped_end_.store(base_);
  map_published();
  ctl_->procs[local_index].attached.store(1);
}

NodeHeap::~NodeHeap() {
  detach();
  segs_.clear();
  if (!in_agent_process_) {
    resv_ = Reservation();  // unmaps the heap
  }
  if (ctl_ && !in_agent_process_) munmap(ctl_, control_bytes_);
  if (sock_ >= 0) close(sock_);
}

void NodeHeap::detach() {
  if (detached_ || sock_ < 0) return;
  detached_ = true;
  CtlMsg bye, r;
  bye.op = kBye;
  rpc(bye, r, nullptr);
}

void NodeHeap::poke_agent() {
  CtlMsg m;
  m.op = kPoke;
  std::lock_guard<std::mutex> g(mu_);
  ctl_send(sock_, m);
}

bool NodeHeap::rpc(const CtlMsg& req, CtlMsg& rep, int* fd) {
  if (!ctl_send(sock_, req)) return false;
  for (;;) {
    if (!ctl_recv(sock_, rep, fd)) return false;
    if (rep.op == req.op) return true;
  }
}

bool NodeHeap::agent_alive() const {
  if (in_agent_process_ || sock_ < 0 || detached_) return true;
  pollfd p{sock_, POLLRDHUP, 0};
  int n = poll(&p, 1, 0);
  return !(n > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)));
}

int NodeHeap::segment_of(uintptr_t addr) const {
  uint32_t n = ctl_->nsegments.load(std::memory_order_acquire);
  uint64_t off = addr - base_;
  for (uint32_t i = 0; i < n; ++i)
    if (off >= ctl_->seg[i].off && off < ctl_->seg[i].off + ctl_->seg[i].size)
      return static_cast<int>(i);
  return -1;
}

void NodeHeap::map_published() {
  uint32_t n = ctl_->nsegments.load(std::memory_order_acquire);
  while (segs_.size() < n) {
    uint32_t i = static_cast<uint32_t>(segs_.size());
    CtlMsg req, r;
    req.op = kGetFd;
    req.a = i;
    int fd = -1;
    if (!rpc(req, r, &fd) || r.status != 0 || fd < 0)
      fatal("ARMCI_Malloc", "the node agent did not hand out heap segment %u", i);
    segs_.push_back(ShmFile::adopt(fd, r.b));
    if (!in_agent_process_) resv_.map_shared(fd, ctl_->seg[i].off, ctl_->seg[i].size, "ARMCI_Malloc");
    mapped_end_.store(base_ + ctl_->seg[i].off + ctl_->seg[i].size, std::memory_order_release);
  }
}

bool NodeHeap::contains_slow(uintptr_t addr, std::size_t len) {
  uintptr_t end = addr + len;
  if (addr < base_ || end < addr || end > heap_end()) return false;
  std::lock_guard<std::mutex> g(mu_);
  map_published();
  return end <= mapped_end_.load();
}

int NodeHeap::commit(uintptr_t addr, std::size_t len) {
  if (len == 0) return 0;
  int s = segment_of(addr);
  if (s < 0) return EINVAL;
  {
    std::lock_guard<std::mutex> g(mu_);
    map_published();
  }
  uint64_t off_in_seg = addr - base_ - ctl_->seg[s].off;
  return commit_pages(segs_[static_cast<std::size_t>(s)].fd(), off_in_seg, len);
}

std::string NodeHeap::out_of_memory_text(uint64_t len, const char* why) const {
  HeapAllocator a(*ctl_);
  std::size_t limit = ctl_->limit.load();
  char buf[768];
  int n = std::snprintf(
      buf, sizeof buf,
      "cannot allocate %s on this node: %s; the heap has %s in %u segments, %s free (largest free "
      "block %s), limit %s",
      format_bytes(len).c_str(), why, format_bytes(ctl_->heap_bytes.load()).c_str(),
      ctl_->nsegments.load(), format_bytes(a.bytes_free()).c_str(),
      format_bytes(a.largest_free()).c_str(),
      limit ? (format_bytes(limit) + " (ARMCI_SHM_LIMIT / ARMCI_Set_shm_limit)").c_str()
            : (format_bytes(resv_size_) + " (reserved address space)").c_str());
  if (backing_ == Backing::Posix && n > 0 && static_cast<std::size_t>(n) < sizeof buf) {
    std::size_t total = 0;
    std::size_t freeb = dev_shm_free_bytes(&total);
    std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n),
                  "; /dev/shm has %s free of %s (its size limits the posix backing; "
                  "ARMCI_SHM_BACKEND=memfd avoids it)",
                  format_bytes(freeb).c_str(), format_bytes(total).c_str());
  }
  return buf;
}

NodeAllocation NodeHeap::allocate(uint64_t len, uint64_t align, const char* call) {
  NodeAllocation out;
  if (len == 0) {
    out.ok = true;
    return out;
  }
  SharedLockGuard g(ctl_->alloc_lock, call);
  HeapAllocator a(*ctl_);
  auto off = a.allocate(len, align);
  if (!off) {
    // Grow by a segment; GROW is only ever sent under alloc_lock.
    CtlMsg req, r;
    req.op = kGrow;
    req.a = len + align;
    int fd = -1;
    bool ok;
    {
      std::lock_guard<std::mutex> lg(mu_);
      ok = rpc(req, r, &fd);
    }
    if (fd >= 0) close(fd);  // mapped below through the published table
    if (!ok) {
      out.error = out_of_memory_text(len, "the node agent is unreachable");
      return out;
    }
    if (r.status != 0) {
      out.error = out_of_memory_text(len, r.text);
      return out;
    }
    // The new segment is ours to hand to the allocator: we hold alloc_lock.
    const uint32_t idx = static_cast<uint32_t>(r.a);
    if (ctl_->nsegments.load(std::memory_order_acquire) <= idx) {
      out.error = out_of_memory_text(len, "the node agent's new segment is not published");
      return out;
    }
    a.add_segment(ctl_->seg[idx].off, r.b);
    off = a.allocate(len, align);
    if (!off) {
      out.error = out_of_memory_text(len, "no free block fits after growing");
      return out;
    }
  }
  {
    std::lock_guard<std::mutex> lg(mu_);
    map_published();
  }
  out.ok = true;
  out.off = *off;
  return out;
}

uint64_t NodeHeap::release(uint64_t off) {
  SharedLockGuard g(ctl_->alloc_lock, "ARMCI_Free");
  HeapAllocator a(*ctl_);
  Extent merged{};
  uint64_t n = a.release(off, &merged);
  // Give large free ranges' pages back to the system; keep small ones warm.
  constexpr uint64_t kReturnAbove = 8u << 20;
  if (n && merged.len >= kReturnAbove) {
    int s = segment_of(base_ + merged.off);
    if (s >= 0) {
      std::lock_guard<std::mutex> lg(mu_);
      map_published();
      uint64_t seg_off = merged.off - ctl_->seg[s].off;
      uint64_t start = (seg_off + 4095) & ~uint64_t{4095};
      uint64_t end = (seg_off + merged.len) & ~uint64_t{4095};
      if (end > start) release_pages(segs_[static_cast<std::size_t>(s)].fd(), start, end - start);
    }
  }
  return n;
}

}  // namespace armci::memory

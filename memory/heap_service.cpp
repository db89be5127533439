#include "memory/heap_service.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "common/knobs.hpp"
#include "common/log.hpp"
#include "memory/heap_allocator.hpp"

namespace armci::memory {

namespace {
constexpr std::size_t kPage = 4096;
constexpr std::size_t kSegAlign = 2u << 20;
std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }
}  // namespace

HeapService::HeapService(EventLoop& loop, HeapConfig cfg, DeathHook on_death)
    : loop_(loop), cfg_(cfg), on_death_(std::move(on_death)) {
  control_bytes_ = round_up(sizeof(NodeControl), kPage);
  control_file_ = ShmFile::create(cfg_.backing, control_bytes_, "control");
  if (int rc = commit_pages(control_file_.fd(), 0, control_bytes_))
    fatal("ARMCI_Init", "cannot allocate the %s node control block: %s",
          format_bytes(control_bytes_).c_str(), std::strerror(rc));
  void* p = mmap(nullptr, control_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED,
                 control_file_.fd(), 0);
  if (p == MAP_FAILED) fatal("ARMCI_Init", "mapping the node control block: %s", std::strerror(errno));
  ctl_ = new (p) NodeControl();
  ctl_->magic = kControlMagic;
  ctl_->version = kControlVersion;
  ctl_->nlocal = cfg_.nlocal;
  ctl_->resv_size = cfg_.reserve;
  ctl_->limit.store(cfg_.limit);
  for (auto& lp : ctl_->procs) lp.numa_node.store(-1);

  listen_fd_ = ctl_listen(sock_name_);
  loop_.add_fd(listen_fd_, EPOLLIN, [this](uint32_t) {
    on_accept();
    return true;
  });
}

HeapService::~HeapService() {
  for (auto& [fd, p] : peers_) {
    loop_.remove_fd(fd);
    close(fd);
  }
  if (listen_fd_ >= 0) {
    loop_.remove_fd(listen_fd_);
    close(listen_fd_);
  }
  segs_.clear();
  resv_ = Reservation();
  if (ctl_) munmap(ctl_, control_bytes_);
}

bool HeapService::all_detached() const {
  for (auto& [fd, p] : peers_)
    if (!p.bye) return false;
  return true;
}

void HeapService::on_accept() {
  unsigned uid = 0;
  int fd = ctl_accept(listen_fd_, &uid);
  if (fd < 0) {
    if (errno == EACCES) warn("node agent", "refused a connection to the heap from user %u", uid);
    return;
  }
  peers_[fd].fd = fd;
  loop_.add_fd(fd, EPOLLIN | EPOLLRDHUP, [this, fd](uint32_t ev) {
    on_peer(fd, ev);
    return true;
  });
}

void HeapService::on_peer(int fd, uint32_t events) {
  auto it = peers_.find(fd);
  if (it == peers_.end()) return;
  Peer& p = it->second;
  CtlMsg m;
  if ((events & EPOLLIN) && ctl_recv(fd, m)) {
    handle(p, m);
    return;
  }
  // Hang-up.  After goodbye it is a normal exit; before, the process died.
  bool clean = p.bye;
  int32_t local = p.local;
  int pid = p.pid;
  loop_.remove_fd(fd);
  close(fd);
  peers_.erase(it);
  if (!clean && on_death_) on_death_(static_cast<uint32_t>(local), pid);
}

void HeapService::handle(Peer& p, const CtlMsg& m) {
  CtlMsg r;
  r.op = m.op;
  switch (m.op) {
    case kHello:
      p.local = static_cast<int32_t>(m.a);
      p.pid = static_cast<int>(m.b);
      p.in_agent_process = m.c != 0;
      if (m.a < kMaxLocalProcs) ctl_->procs[m.a].pid.store(p.pid);
      r.a = control_bytes_;
      ctl_send(p.fd, r, control_file_.fd());
      if (++hellos_ == cfg_.nlocal) propose();
      return;
    case kPropose:  // a peer's answer to our proposal
      ++answers_;
      if (m.status != 0) ++refusals_;
      if (answers_ == cfg_.nlocal) {
        if (refusals_ == 0) commit_reservation();
        else propose();
      }
      return;
    case kGrow:
      grow(m.a, r);
      if (r.status == 0) ctl_send(p.fd, r, segs_[r.a].fd());
      else ctl_send(p.fd, r);
      return;
    case kGetFd:
      if (m.a >= segs_.size()) {
        r.status = EINVAL;
        ctl_send(p.fd, r);
      } else {
        r.a = m.a;
        r.b = segs_[m.a].size();
        ctl_send(p.fd, r, segs_[m.a].fd());
      }
      return;
    case kPoke:
      if (poke_hook_) poke_hook_();
      return;
    case kBye:
      p.bye = true;
      if (p.local >= 0 && static_cast<uint32_t>(p.local) < kMaxLocalProcs)
        ctl_->procs[p.local].detached.store(1);
      ctl_send(p.fd, r);
      return;
    default:
      r.status = EINVAL;
      ctl_send(p.fd, r);
  }
}

void HeapService::propose() {
  answers_ = refusals_ = 0;
  resv_ = Reservation();
  while (!resv_.valid()) {
    if (attempt_ > 64)
      fatal("ARMCI_Init", "the processes of this node found no common free %s address range for "
            "the heap after %u attempts", format_bytes(cfg_.reserve).c_str(), attempt_);
    uintptr_t a = propose_reservation_address(cfg_.reserve, attempt_++);
    if (a) resv_ = Reservation::at(a, cfg_.reserve);
  }
  CtlMsg m;
  m.op = kPropose;
  m.a = resv_.base();
  m.b = resv_.size();
  for (auto& [fd, p] : peers_) ctl_send(fd, m);
}

void HeapService::commit_reservation() {
  ctl_->resv_base = resv_.base();
  ctl_->resv_size = resv_.size();
  // Segment 0 starts with the permanent prefix (message areas).
  CtlMsg r;
  if (!grow(std::max<std::size_t>(cfg_.prefix_bytes, 1), r))
    fatal("ARMCI_Init", "cannot create the first heap segment: %s", r.text);
  // No process is attached yet: the agent owns the allocator now.
  HeapAllocator(*ctl_).add_segment(ctl_->seg[r.a].off, r.b);
  if (cfg_.prefix_bytes) {
    HeapAllocator alloc(*ctl_);
    auto off = alloc.allocate(round_up(cfg_.prefix_bytes, kPage), kPage);
    ARMCI_ASSERT(off && *off == 0);
    if (int rc = commit_pages(segs_[0].fd(), 0, cfg_.prefix_bytes))
      fatal("ARMCI_Init", "cannot allocate %s of message areas: %s",
            format_bytes(cfg_.prefix_bytes).c_str(), std::strerror(rc));
  }
  committed_ = true;
  CtlMsg m;
  m.op = kCommit;
  m.a = resv_.base();
  m.b = resv_.size();
  for (auto& [fd, p] : peers_) ctl_send(fd, m);
  verbose(1, "node heap: %s reserved at %p, %s segments, backing %s", format_bytes(resv_.size()).c_str(),
          reinterpret_cast<void*>(resv_.base()), format_bytes(cfg_.segment_size).c_str(),
          backing_name(cfg_.backing));
}

bool HeapService::grow(uint64_t min_bytes, CtlMsg& r) {
  std::size_t size = std::max(cfg_.segment_size, round_up(min_bytes, kSegAlign));
  std::size_t used = ctl_->heap_bytes.load();
  std::size_t limit = ctl_->limit.load();
  if (limit == 0 || limit > resv_.size()) limit = resv_.size();
  auto fail = [&](int code, const char* fmt, auto... args) {
    r.status = code;
    std::snprintf(r.text, sizeof r.text, fmt, args...);
    return false;
  };
  if (used + size > limit) {
    std::size_t room = limit > used ? (limit - used) / kPage * kPage : 0;
    if (room < min_bytes)
      return fail(ENOMEM, "the node heap limit is %s and %s are already in segments",
                  format_bytes(limit).c_str(), format_bytes(used).c_str());
    size = room;
  }
  if (segs_.size() >= kMaxSegments)
    return fail(ENOMEM, "the node heap has its maximum of %u segments", kMaxSegments);
  ShmFile f = ShmFile::create(cfg_.backing, size, "heap");
  resv_.map_shared(f.fd(), used, size, "ARMCI_Malloc");
  uint32_t idx = static_cast<uint32_t>(segs_.size());
  SegmentEntry& e = ctl_->seg[idx];
  e.off = used;
  e.size = size;
  std::fill(std::begin(e.keys), std::end(e.keys), 0);
  if (segment_hook_) segment_hook_(idx, reinterpret_cast<void*>(resv_.base() + used), size, e.keys);
  segs_.push_back(std::move(f));
  ctl_->heap_bytes.store(used + size);
  ctl_->nsegments.store(idx + 1, std::memory_order_release);
  verbose(2, "node heap: segment %u of %s at %p", idx, format_bytes(size).c_str(),
          reinterpret_cast<void*>(resv_.base() + used));
  r.a = idx;
  r.b = size;
  return true;
}

}  // namespace armci::memory

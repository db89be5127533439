#include "memory/shm_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "armci_config.h"
#include "common/knobs.hpp"
#include "common/log.hpp"

namespace armci::memory {

Backing parse_backing(const std::string& name) {
  if (name == "memfd") return Backing::Memfd;
  if (name == "posix") return Backing::Posix;
  fatal("ARMCI_Init", "ARMCI_SHM_BACKEND=\"%s\" is neither memfd nor posix", name.c_str());
}

const char* backing_name(Backing b) { return b == Backing::Memfd ? "memfd" : "posix"; }

std::string random_hex(std::size_t nbytes) {
  unsigned char buf[64];
  if (nbytes > sizeof buf) nbytes = sizeof buf;
  std::size_t got = 0;
  while (got < nbytes) {
    ssize_t n = getrandom(buf + got, nbytes - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      fatal("ARMCI_Init", "getrandom failed: %s", std::strerror(errno));
    }
    got += static_cast<std::size_t>(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < nbytes; ++i) {
    s.push_back(hex[buf[i] >> 4]);
    s.push_back(hex[buf[i] & 15]);
  }
  return s;
}

ShmFile ShmFile::create(Backing backing, std::size_t size, const char* purpose) {
  int fd = -1;
  if (backing == Backing::Memfd) {
#ifdef HAVE_MEMFD_CREATE
    std::string name = std::string("armci-") + purpose;
    fd = memfd_create(name.c_str(), MFD_CLOEXEC);
    if (fd < 0)
      fatal("ARMCI_Malloc", "memfd_create(%s) failed: %s (try ARMCI_SHM_BACKEND=posix)",
            name.c_str(), std::strerror(errno));
#else
    fatal("ARMCI_Malloc", "this system has no memfd_create; set ARMCI_SHM_BACKEND=posix");
#endif
  } else {
    // Unguessable name, exclusive create, owner-only, unlinked at once: the
    // name exists for microseconds and only in this process's hands.
    std::string name = "/armci-" + random_hex(16);
    fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
      fatal("ARMCI_Malloc", "shm_open(%s) failed: %s", name.c_str(), std::strerror(errno));
    shm_unlink(name.c_str());
  }
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    int e = errno;
    close(fd);
    fatal("ARMCI_Malloc", "ftruncate of a %s %s heap file failed: %s", format_bytes(size).c_str(),
          backing_name(backing), std::strerror(e));
  }
  return ShmFile(fd, size);
}

ShmFile::~ShmFile() {
  if (fd_ >= 0) close(fd_);
}

ShmFile& ShmFile::operator=(ShmFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_;
    size_ = o.size_;
    o.fd_ = -1;
  }
  return *this;
}

int commit_pages(int fd, std::size_t offset, std::size_t len) {
  if (len == 0) return 0;
  int rc;
  do {
    rc = posix_fallocate(fd, static_cast<off_t>(offset), static_cast<off_t>(len));
  } while (rc == EINTR);
  return rc;
}

void release_pages(int fd, std::size_t offset, std::size_t len) {
  if (len == 0) return;
  fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
            static_cast<off_t>(len));
}

std::size_t dev_shm_free_bytes(std::size_t* total) {
  struct statvfs s;
  if (statvfs("/dev/shm", &s) != 0) {
    if (total) *total = 0;
    return 0;
  }
  if (total) *total = static_cast<std::size_t>(s.f_blocks) * s.f_frsize;
  return static_cast<std::size_t>(s.f_bavail) * s.f_frsize;
}

Reservation Reservation::at(uintptr_t addr, std::size_t size) {
  // An address a sanitizer runtime rejects reaches the kernel as 0, where
  // MAP_FIXED_NOREPLACE would succeed for root: never ask for page 0.
  if (addr == 0) return {};
  void* p = mmap(reinterpret_cast<void*>(addr), size, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED) return {};
  if (reinterpret_cast<uintptr_t>(p) != addr) {  // kernels before 4.17 treat it as a hint
    munmap(p, size);
    return {};
  }
  Reservation r;
  r.base_ = addr;
  r.size_ = size;
  return r;
}

Reservation::~Reservation() {
  if (base_) munmap(reinterpret_cast<void*>(base_), size_);
}

Reservation& Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    if (base_) munmap(reinterpret_cast<void*>(base_), size_);
    base_ = o.base_;
    size_ = o.size_;
    o.base_ = 0;
  }
  return *this;
}

void Reservation::map_shared(int fd, std::size_t offset_in_resv, std::size_t len,
                             const char* call) const {
  ARMCI_ASSERT(offset_in_resv + len <= size_);
  void* want = reinterpret_cast<void*>(base_ + offset_in_resv);
  void* p = mmap(want, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  if (p == MAP_FAILED)
    fatal(call, "mapping a %s heap segment at %p failed: %s", format_bytes(len).c_str(), want,
          std::strerror(errno));
}

#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif
#else
constexpr bool kThreadSanitizer = false;
#endif

uintptr_t propose_reservation_address(std::size_t size, unsigned attempt) {
  // Between 16 TiB and 64 TiB: above brk heaps and below PIE images
  // (0x55..) and the mmap area (0x7f..); AddressSanitizer keeps its shadow
  // below.  ThreadSanitizer keeps shadow and meta data there and accepts
  // application mappings only in a few ranges; of those, the one below
  // 512 GiB is free above the brk heap of a non-PIE binary.
  const uintptr_t lo = kThreadSanitizer ? uintptr_t{64} << 30 : uintptr_t{16} << 40;
  const uintptr_t hi = kThreadSanitizer ? uintptr_t{448} << 30 : uintptr_t{64} << 40;
  const uintptr_t align = uintptr_t{1} << 30;
  if (attempt >= 12 || size > hi - lo) {
    void* p = mmap(nullptr, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return 0;
    uintptr_t a = (reinterpret_cast<uintptr_t>(p) + align - 1) & ~(align - 1);
    munmap(p, size + align);
    return a;
  }
  uint64_t r = 0;
  while (getrandom(&r, sizeof r, 0) != sizeof r) {
  }
  uintptr_t slots = (hi - lo - size) / align;
  return lo + (r % slots) * align;
}

}  // namespace armci::memory

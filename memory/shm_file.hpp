// Backing files of the node heap and the address-space reservation that lets
// every process of a node map the heap at the same virtual address.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace armci::memory {

enum class Backing { Memfd, Posix };
Backing parse_backing(const std::string& name);  // fatal on an unknown name
const char* backing_name(Backing b);

// An open, nameless shared-memory file.  With Posix the name is unlinked
// before this returns, so nothing can be left behind in /dev/shm by a crash.
class ShmFile {
 public:
  ShmFile() = default;
  static ShmFile create(Backing backing, std::size_t size, const char* purpose);
  static ShmFile adopt(int fd, std::size_t size) { return ShmFile(fd, size); }
  ~ShmFile();
  ShmFile(ShmFile&& o) noexcept : fd_(o.fd_), size_(o.size_) { o.fd_ = -1; }
  ShmFile& operator=(ShmFile&& o) noexcept;
  ShmFile(const ShmFile&) = delete;
  ShmFile& operator=(const ShmFile&) = delete;

  int fd() const { return fd_; }
  std::size_t size() const { return size_; }
  bool valid() const { return fd_ >= 0; }

 private:
  ShmFile(int fd, std::size_t size) : fd_(fd), size_(size) {}
  int fd_ = -1;
  std::size_t size_ = 0;
};

// Allocates pages for [offset, offset+len) of the file so that running out of
// memory is an error here, never a SIGBUS later.  Returns 0 or an errno.
int commit_pages(int fd, std::size_t offset, std::size_t len);
// Gives the pages of a freed range back to the system.
void release_pages(int fd, std::size_t offset, std::size_t len);

// Bytes free in the filesystem behind /dev/shm (the POSIX backing's limit).
std::size_t dev_shm_free_bytes(std::size_t* total = nullptr);

// PROT_NONE reservation of address space at an exact address.
class Reservation {
 public:
  Reservation() = default;
  // nullptr if the range [addr, addr+size) is not free in this process.
  static Reservation at(uintptr_t addr, std::size_t size);
  ~Reservation();
  Reservation(Reservation&& o) noexcept : base_(o.base_), size_(o.size_) { o.base_ = 0; }
  Reservation& operator=(Reservation&& o) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;

  uintptr_t base() const { return base_; }
  std::size_t size() const { return size_; }
  bool valid() const { return base_ != 0; }
  // Maps [offset, offset+len) of fd at base+offset, replacing the reservation.
  void map_shared(int fd, std::size_t offset_in_resv, std::size_t len, const char* call) const;

 private:
  uintptr_t base_ = 0;
  std::size_t size_ = 0;
};

// Candidate addresses for a node's reservation: random, aligned, in the part
// of the x86-64/aarch64 user address space that programs rarely use.
uintptr_t propose_reservation_address(std::size_t size, unsigned attempt);

std::string random_hex(std::size_t nbytes);  // from getrandom()

}  // namespace armci::memory

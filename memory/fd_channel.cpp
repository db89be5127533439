#include "memory/fd_channel.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.hpp"
#include "memory/shm_file.hpp"

namespace armci::memory {

namespace {

socklen_t abstract_addr(const std::string& name, sockaddr_un& sa) {
  std::memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  // Leading NUL: Linux abstract namespace, gone with the last socket.
  std::size_t n = std::min(name.size(), sizeof(sa.sun_path) - 2);
  std::memcpy(sa.sun_path + 1, name.data(), n);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

}  // namespace

int ctl_listen(std::string& name) {
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) fatal("ARMCI_Init", "socket(AF_UNIX) failed: %s", std::strerror(errno));
  for (int attempt = 0; attempt < 8; ++attempt) {
    name = "armci-" + random_hex(12);
    sockaddr_un sa;
    socklen_t len = abstract_addr(name, sa);
    if (bind(fd, reinterpret_cast<sockaddr*>(&sa), len) == 0) {
      if (listen(fd, 1024) != 0)
        fatal("ARMCI_Init", "listen on the node control socket failed: %s", std::strerror(errno));
      return fd;
    }
  }
  fatal("ARMCI_Init", "cannot bind a node control socket: %s", std::strerror(errno));
}

int ctl_connect(const std::string& name) {
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un sa;
  socklen_t len = abstract_addr(name, sa);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), len) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int ctl_accept(int listen_fd, unsigned* refused_uid) {
  int fd;
  do {
    fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return fd;
  // Abstract names are visible to every process of the network namespace
  // (/proc/net/unix): only the job's own user (real or effective, or root)
  // may attach to the heap.
  ucred c{};
  socklen_t len = sizeof c;
  const bool ok = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) == 0 &&
                  (c.uid == geteuid() || c.uid == getuid() || c.uid == 0);
  if (!ok) {
    if (refused_uid) *refused_uid = c.uid;
    close(fd);
    errno = EACCES;
    return -1;
  }
  return fd;
}

bool ctl_send(int sock, const CtlMsg& m, int fd) {
  iovec iov{const_cast<CtlMsg*>(&m), sizeof m};
  msghdr h{};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int))];
  if (fd >= 0) {
    std::memset(cbuf, 0, sizeof cbuf);
    h.msg_control = cbuf;
    h.msg_controllen = sizeof cbuf;
    cmsghdr* c = CMSG_FIRSTHDR(&h);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  ssize_t n;
  do {
    n = sendmsg(sock, &h, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof m);
}

bool ctl_recv(int sock, CtlMsg& m, int* fd) {
  if (fd) *fd = -1;
  iovec iov{&m, sizeof m};
  msghdr h{};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int))];
  h.msg_control = cbuf;
  h.msg_controllen = sizeof cbuf;
  ssize_t n;
  do {
    n = recvmsg(sock, &h, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof m)) return false;
  for (cmsghdr* c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int got;
      std::memcpy(&got, CMSG_DATA(c), sizeof(int));
      if (fd) *fd = got;
      else close(got);
    }
  }
  return true;
}

}  // namespace armci::memory

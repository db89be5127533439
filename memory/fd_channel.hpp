// Node-local control channel: SOCK_SEQPACKET unix sockets in the abstract
// namespace (no file to leave behind) that carry small fixed messages and,
// with them, file descriptors of heap segments.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace armci::memory {

struct CtlMsg {
  uint32_t op = 0;
  int32_t status = 0;
  uint64_t a = 0, b = 0, c = 0;
  char text[200] = {};  // error text of a failed request
};

enum CtlOp : uint32_t {
  kHello = 1,      // a = local index, b = pid          -> a = resv size, fd = control block
  kPropose,        // agent->peer: a = reservation base  -> status 0 if reserved
  kCommit,         // agent->peer: reservation agreed
  kGrow,           // a = minimum bytes                 -> a = segment index, fd
  kGetFd,          // a = segment index                 -> fd
  kBye,            // clean detach at finalize
  kPoke,           // one-way: a lock with remote waiters was released
};

// Listening socket with a random abstract name; returns fd, fills name.
int ctl_listen(std::string& name);
int ctl_connect(const std::string& name);  // -1 on failure
// -1 (errno EACCES, *refused_uid set) for a connection from another user.
int ctl_accept(int listen_fd, unsigned* refused_uid);
bool ctl_send(int sock, const CtlMsg& m, int fd = -1);
// Returns false on EOF or error; *fd (if given) receives a passed fd or -1.
bool ctl_recv(int sock, CtlMsg& m, int* fd = nullptr);

}  // namespace armci::memory

// The heap's control channel admits only the job's own user: its abstract
// socket name is visible to every process of the network namespace.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "memory/fd_channel.hpp"

using namespace armci::memory;

TEST(FdChannel, OnlyTheSameUserMayConnect) {
  std::string name;
  const int lfd = ctl_listen(name);
  ASSERT_GE(lfd, 0);
  // Same user: accepted.
  const int c = ctl_connect(name);
  ASSERT_GE(c, 0);
  unsigned uid = 12345;
  const int a = ctl_accept(lfd, &uid);
  EXPECT_GE(a, 0);
  close(a);
  close(c);
  if (geteuid() != 0) GTEST_SKIP() << "another user's connection needs root to switch users";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    const int fd = ctl_connect(name);
    if (fd < 0) _exit(3);
    char b;
    _exit(read(fd, &b, 1) == 0 ? 0 : 4);  // closed by the other side
  }
  uid = 0;
  errno = 0;
  EXPECT_EQ(ctl_accept(lfd, &uid), -1);
  EXPECT_EQ(errno, EACCES);
  EXPECT_EQ(uid, 65534u);
  int st = 0;
  waitpid(child, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "child status " << st;
  close(lfd);
}

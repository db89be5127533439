// main() of every multi-process test program: ARMCI_Init, run the tests,
// agree on the outcome, ARMCI_Finalize.  ARMCI_TEST_MPI=1 starts MPI first
// (MPI_THREAD_MULTIPLE), as a GA program does: collectives between nodes
// then take MPI's path (ARMCI_COLL_MPI).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "armci.h"
#include "message.h"

namespace {

// Non-zero ranks print only their failures, prefixed with the rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const char* with_mpi = std::getenv("ARMCI_TEST_MPI");
  const bool mpi = with_mpi && std::strcmp(with_mpi, "1") == 0;
#if ARMCI_OFI_HAVE_MPI
  if (mpi) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  }
#else
  if (mpi) {
    std::fprintf(stderr, "ARMCI_TEST_MPI=1: this build has no MPI\n");
    return 1;
  }
#endif
  ARMCI_Init();
  const int me = armci_msg_me();
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (me != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(me));
  }
  int rc = RUN_ALL_TESTS();
  armci_msg_igop(&rc, 1, const_cast<char*>("max"));
  ARMCI_Finalize();
#if ARMCI_OFI_HAVE_MPI
  if (mpi) MPI_Finalize();
#endif
  return rc ? 1 : 0;
}

#include "ga/blas.hpp"

#include <cblas.h>

namespace ga {

void blas_init() { openblas_set_num_threads(1); }

void dgemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
           int ldb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha,
              a, lda, b, ldb, beta, c, ldc);
}

}  // namespace ga

// The BLAS the layer uses (OpenBLAS through cblas.h, kept out of ga.h).
#pragma once

namespace ga {

// One BLAS thread per process: GA runs one process per core already.
void blas_init();

// Row-major C = alpha * op(A) * op(B) + beta * C, op(A) m x k, op(B) k x n.
void dgemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
           int ldb, double beta, double* c, int ldc);

}  // namespace ga

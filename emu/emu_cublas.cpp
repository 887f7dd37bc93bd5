// cuBLAS for the emulator: the two GEMMs the kernels call, as a column-major
// reference (double accumulation) that enforces cuBLAS's documented argument
// rules and returns CUBLAS_STATUS_INVALID_VALUE like the real library:
// m, n, k, batchCount >= 0; lda >= max(1, rows of op(A)'s stored matrix),
// ldb likewise, ldc >= max(1, m). Every matrix it reads or writes must lie inside
// one device allocation (a host pointer, or a leading dimension or stride that
// runs past the buffer, is an illegal address on a GPU: a sticky launch failure).
// CUBLAS_TF32_TENSOR_OP_MATH rounds A and B to TF32 (10-bit mantissa) first.
#include "emu_internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <set>

struct emu_blas {
  cudaStream_t stream;
  cublasMath_t mode;
};
static std::set<cublasHandle_t> handles;

cublasStatus_t cublasCreate(cublasHandle_t *h) {
  *h = new emu_blas{NULL, CUBLAS_DEFAULT_MATH};
  handles.insert(*h);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t h) {
  if (!handles.erase(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete h;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) {
  if (!handles.count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!emu_stream_ok(s, "cublasSetStream")) return CUBLAS_STATUS_INVALID_VALUE;
  h->stream = s;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode) {
  if (!handles.count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode != CUBLAS_DEFAULT_MATH && mode != CUBLAS_TF32_TENSOR_OP_MATH) return CUBLAS_STATUS_INVALID_VALUE;
  h->mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusString(cublasStatus_t s) {
  switch (s) {
  case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

// Says why on stderr (the real library is silent; a test reader is not).
static cublasStatus_t invalid(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static cublasStatus_t invalid(const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "emu: %s: CUBLAS_STATUS_INVALID_VALUE: ", what);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return CUBLAS_STATUS_INVALID_VALUE;
}

static float tf32(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0xfffu + (u >> 13 & 1)) & ~0x1fffu; // to nearest even
  memcpy(&x, &u, 4);
  return x;
}

struct mat {
  const float *p;
  int rows, cols, ld; // the stored (column-major) matrix
  long long stride;
};

// Matrix i of the batch lies inside one device allocation.
static bool inside(const mat &m, int batch) {
  if (!m.rows || !m.cols) return true;
  for (int i = 0; i < batch; i++)
    if (!emu_is_device(m.p + i * m.stride, ((size_t)(m.cols - 1) * m.ld + m.rows) * sizeof(float)))
      return false;
  return true;
}

static cublasStatus_t gemm(const char *what, cublasHandle_t h, cublasOperation_t ta,
                           cublasOperation_t tb, int m, int n, int k, const float *alpha,
                           const float *A, int lda, long long sa, const float *B, int ldb,
                           long long sb, const float *beta, float *C, int ldc, long long sc,
                           int batch) {
  if (!handles.count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (ta < CUBLAS_OP_N || ta > CUBLAS_OP_C || tb < CUBLAS_OP_N || tb > CUBLAS_OP_C)
    return invalid(what, "bad transa/transb");
  if (m < 0 || n < 0 || k < 0 || batch < 0)
    return invalid(what, "m=%d n=%d k=%d batchCount=%d (none may be negative)", m, n, k, batch);
  bool na = ta == CUBLAS_OP_N, nb = tb == CUBLAS_OP_N;
  int ra = na ? m : k, rb = nb ? k : n;
  if (lda < (ra > 1 ? ra : 1)) return invalid(what, "lda=%d < max(1, %s=%d)", lda, na ? "m" : "k", ra);
  if (ldb < (rb > 1 ? rb : 1)) return invalid(what, "ldb=%d < max(1, %s=%d)", ldb, nb ? "k" : "n", rb);
  if (ldc < (m > 1 ? m : 1)) return invalid(what, "ldc=%d < max(1, m=%d)", ldc, m);
  if (!alpha || !beta) return invalid(what, "alpha or beta is NULL");
  if (emu_stopped()) return CUBLAS_STATUS_EXECUTION_FAILED;
  if (!m || !n || !batch) return CUBLAS_STATUS_SUCCESS;
  bool reads = *alpha != 0 && k > 0;
  const mat mats[3] = {{A, ra, na ? k : m, lda, sa}, {B, rb, nb ? n : k, ldb, sb}, {C, m, n, ldc, sc}};
  const mat &a = mats[0], &b = mats[1], &c = mats[2];
  const mat *bad = reads && !inside(a, batch)   ? &a
                   : reads && !inside(b, batch) ? &b
                   : !inside(c, batch)          ? &c
                                                : NULL;
  if (bad) {
    emu_report(cudaErrorLaunchFailure, "%s: %c (%d x %d, ld %d, stride %lld, %d in the batch) is not "
               "inside one device allocation", what, "ABC"[bad - &a], bad->rows, bad->cols, bad->ld,
               bad->stride, batch);
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  bool round = h->mode == CUBLAS_TF32_TENSOR_OP_MATH;
  emu_device_access(true, what);
  for (int q = 0; q < batch; q++) {
    const float *Aq = A + q * sa, *Bq = B + q * sb;
    float *Cq = C + q * sc;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) {
        double s = 0;
        for (int l = 0; reads && l < k; l++) {
          float x = na ? Aq[i + (size_t)l * lda] : Aq[l + (size_t)i * lda];
          float y = nb ? Bq[l + (size_t)j * ldb] : Bq[j + (size_t)l * ldb];
          s += round ? (double)tf32(x) * tf32(y) : (double)x * y;
        }
        float *cij = &Cq[i + (size_t)j * ldc];
        *cij = (float)(*alpha * s + (*beta == 0 ? 0.0 : (double)*beta * *cij)); // beta 0: C is not read
      }
  }
  emu_device_access(false, NULL);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const float *alpha, const float *A, int lda,
                           const float *B, int ldb, const float *beta, float *C, int ldc) {
  return gemm("cublasSgemm", h, ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda, long long sa,
                                         const float *B, int ldb, long long sb, const float *beta,
                                         float *C, int ldc, long long sc, int batch) {
  return gemm("cublasSgemmStridedBatched", h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta,
              C, ldc, sc, batch);
}

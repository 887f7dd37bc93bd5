/* Float GEMM rate on given shapes under one engine. The training bench takes
 * the best of every engine and OpenBLAS kernel the core runs as its ceiling,
 * and the peers run on the best kernel (bench/multi30k.bash, which builds this).
 *   sgemm [-e openblas|onednn|nmt] SECONDS SHAPE...
 *   SHAPE = MxNxK[:TATB][*COUNT], e.g. 512x5012x1024:TN*2
 * openblas: cblas_sgemm on the kernel OPENBLAS_CORETYPE names or the CPU's own;
 * onednn: dnnl_sgemm; nmt: libnmt's nn_gemm, on the engine nmt chose (NMT_GEMM
 * and NMT_ISA apply). Threads: OPENBLAS_NUM_THREADS (OpenBLAS, and nmt's own
 * count), OMP_NUM_THREADS (oneDNN). The first line names what ran ("sgemm engine
 * openblas:Haswell"); then one line per shape, each run for about SECONDS, and,
 * last, the rate of the whole mix: every shape COUNT times (a training step's
 * GEMMs). */
#include "nn/gemm_path.h"
#include "nn/kernels.h"
#include <cblas.h>
#include <dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* C = op(A)·op(B) + C, row-major; 0 on success. beta 1: the accumulating form
 * the backward pass uses. */
typedef int gemm_fn(char ta, char tb, int M, int N, int K, const float *A, int lda,
                    const float *B, int ldb, float *C, int ldc);

static int openblas(char ta, char tb, int M, int N, int K, const float *A, int lda,
                    const float *B, int ldb, float *C, int ldc) {
  cblas_sgemm(CblasRowMajor, ta == 'T' ? CblasTrans : CblasNoTrans,
              tb == 'T' ? CblasTrans : CblasNoTrans, M, N, K, 1, A, lda, B, ldb, 1, C, ldc);
  return 0;
}

static int onednn(char ta, char tb, int M, int N, int K, const float *A, int lda,
                  const float *B, int ldb, float *C, int ldc) {
  return dnnl_sgemm(ta, tb, M, N, K, 1, A, lda, B, ldb, 1, C, ldc) != dnnl_success;
}

static int nmt(char ta, char tb, int M, int N, int K, const float *A, int lda,
               const float *B, int ldb, float *C, int ldc) {
  nn_gemm(ta == 'T', tb == 'T', M, N, K, 1, A, lda, B, ldb, 1, C, ldc);
  return 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* On transparent huge pages, as nmt-train's buffers (nn_big_alloc): the best
 * rate this machine gives, so the ceiling is not set low. */
static float *filled(size_t n) {
  float *p = NULL;
  size_t huge = 2 << 20, bytes = (n * sizeof *p + huge - 1) / huge * huge;
  if (posix_memalign((void **)&p, huge, bytes)) return NULL;
  madvise(p, bytes, MADV_HUGEPAGE);
  for (size_t i = 0; p && i < n; i++) p[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
  return p;
}

static int usage(void) {
  fprintf(stderr, "usage: sgemm [-e openblas|onednn|nmt] SECONDS MxNxK[:TT][*COUNT]...\n");
  return 1;
}

int main(int argc, char **argv) {
  const char *engine = "openblas";
  for (int o; (o = getopt(argc, argv, "e:")) != -1;)
    if (o == 'e') engine = optarg;
    else return usage();
  gemm_fn *gemm = !strcmp(engine, "openblas") ? openblas
                  : !strcmp(engine, "onednn") ? onednn
                  : !strcmp(engine, "nmt")    ? nmt
                                              : NULL;
  if (!gemm || argc - optind < 2) return usage();
  if (gemm == openblas) printf("sgemm engine openblas:%s\n", openblas_get_corename());
  else if (gemm == nmt) printf("sgemm engine nmt:%s\n", nn_gemm_engine_name(nn_gemm_engine_used()));
  else printf("sgemm engine onednn\n");
  double secs = atof(argv[optind]), flop_all = 0, time_all = 0;
  for (int a = optind + 1; a < argc; a++) {
    int M, N, K, count = 1;
    char ta = 'N', tb = 'N';
    const char *star = strchr(argv[a], '*');
    if (star) count = atoi(star + 1);
    if (sscanf(argv[a], "%dx%dx%d:%c%c", &M, &N, &K, &ta, &tb) < 3 || count < 1) {
      fprintf(stderr, "sgemm: bad shape '%s'\n", argv[a]);
      return 1;
    }
    float *A = filled((size_t)M * K), *B = filled((size_t)K * N), *C = filled((size_t)M * N);
    if (!A || !B || !C) return 3;
    int lda = ta == 'T' ? M : K, ldb = tb == 'T' ? K : N;
    /* one call untimed: oneDNN generates its kernel and each engine starts its threads */
    if (gemm(ta, tb, M, N, K, A, lda, B, ldb, C, N)) {
      fprintf(stderr, "sgemm: %s failed on %s\n", engine, argv[a]);
      return 3;
    }
    double flop = 2.0 * M * N * K, t0 = now(), t;
    long reps = 0;
    do {
      gemm(ta, tb, M, N, K, A, lda, B, ldb, C, N);
      reps++;
    } while ((t = now() - t0) < secs);
    printf("sgemm %dx%dx%d:%c%c %.1f GFLOP/s\n", M, N, K, ta, tb, flop * reps / t / 1e9);
    flop_all += flop * count;
    time_all += t / reps * count;
    free(A), free(B), free(C);
  }
  printf("sgemm all %.1f GFLOP/s\n", flop_all / time_all / 1e9);
  return 0;
}

/* OpenBLAS sgemm rate on given shapes: the ceiling the training and decoding
 * benches compare against. Built by bench/train.sh, not by `make all`.
 *   sgemm SECONDS SHAPE...   SHAPE = MxNxK[:TATB][*COUNT], e.g. 512x5012x1024:TN*2
 * Each shape runs for about SECONDS; prints one line per shape and, last, the
 * rate of the whole mix: every shape COUNT times (a training step's GEMMs). */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

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

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: sgemm SECONDS MxNxK[:TT]...\n");
    return 1;
  }
  double secs = atof(argv[1]), flop_all = 0, time_all = 0;
  for (int a = 2; a < argc; a++) {
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
    double flop = 2.0 * M * N * K, t0 = now(), t;
    long reps = 0;
    do { /* beta 1: the accumulating form the backward pass uses */
      cblas_sgemm(CblasRowMajor, ta == 'T' ? CblasTrans : CblasNoTrans,
                  tb == 'T' ? CblasTrans : CblasNoTrans, M, N, K, 1, A, lda, B, ldb, 1, C, N);
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

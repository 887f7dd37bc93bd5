/* oneDNN's dnnl_sgemm (nn/sgemm_onednn.h), loaded when first needed: its 40 MB
 * library stays out of the tools and cores that never use it (an AVX2 core,
 * nmt-model under a tight ulimit -v). Debian's oneDNN runs on OpenMP, whose
 * spinning team collapsed (100 -> 4 GFLOP/s) when another process held a core
 * and fought OpenBLAS's idle pool; so each calling thread keeps a team of one
 * (the team size is per thread) and the columns are split over nmt's own
 * threads (nn/parallel.h), as nmt's engine does: a training worker's products
 * stay on its thread, a decoder's only batch gets every core. */
#include "nn/sgemm_onednn.h"
#include "nn/gemm_args.h"
#include "nn/parallel.h"
#include <dlfcn.h>
#include <dnnl.h>
#include <pthread.h>
#include <stdio.h>

static __typeof__(dnnl_sgemm) *sgemm;
static void (*set_team)(int); /* libgomp's omp_set_num_threads, a dependency of oneDNN's */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
  void *lib = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (lib) {
    sgemm = (__typeof__(dnnl_sgemm) *)dlsym(lib, "dnnl_sgemm");
    set_team = (void (*)(int))dlsym(lib, "omp_set_num_threads");
  }
  if (!sgemm || !set_team) {
    sgemm = NULL;
    fprintf(stderr, "nmt: oneDNN (libdnnl.so.2) could not be loaded: %s; using OpenBLAS\n",
            lib ? "no dnnl_sgemm or omp_set_num_threads" : dlerror());
  }
}

bool nn_sgemm_onednn_loaded(void) {
  pthread_once(&once, load);
  return sgemm != NULL;
}

/* Columns [n0, n1) of C, whole cache lines per part where N allows. */
static void run(void *ctx, int part, int parts) {
  static _Thread_local bool alone;
  const nn_gemm_args *j = ctx;
  int n0, n1;
  nn_gemm_part_columns(j->N, 16, part, parts, &n0, &n1);
  if (n1 <= n0) return;
  if (!alone) set_team(1), alone = true;
  const float *B = j->tb ? j->B + (size_t)n0 * j->ldb : j->B + n0;
  if (sgemm(j->ta ? 'T' : 'N', j->tb ? 'T' : 'N', j->M, n1 - n0, j->K, j->alpha, j->A, j->lda, B, j->ldb,
            j->beta, j->C + n0, j->ldc) != dnnl_success)
    nn_gemm_args_openblas(j, n0, n1);
}

void nn_sgemm_onednn(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc) {
  nn_gemm_args j = {ta, tb, M, N, K, lda, ldb, ldc, alpha, beta, A, B, C};
  if (nn_sgemm_onednn_loaded())
    nn_parallel((size_t)M * N * (size_t)K / 4, run, &j);
  else
    nn_gemm_args_openblas(&j, 0, N);
}

/* oneDNN's dnnl_sgemm (nn/sgemm_onednn.h), loaded when first needed: its 40 MB
 * library stays out of the tools and cores that never use it (an AVX2 core,
 * nmt-model under a tight ulimit -v). Debian's oneDNN runs on OpenMP, whose
 * team size is per calling thread: each thread sets its own from nn_threads(),
 * so a training worker's products stay on its thread and a decoder's only
 * batch gets every core, as with OpenBLAS. */
#include "nn/sgemm_onednn.h"
#include "nn/parallel.h"
#include <cblas.h>
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

void nn_sgemm_onednn(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc) {
  static _Thread_local int team;
  if (nn_sgemm_onednn_loaded()) {
    int n = nn_threads();
    if (n != team) set_team(team = n);
    if (sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, A, lda, B, ldb, beta, C, ldc) == dnnl_success)
      return;
  }
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K,
              alpha, A, lda, B, ldb, beta, C, ldc);
}

/* Statistical tests as sacreBLEU's significance.py (see metrics/bleu_signif.h). */
#include "metrics/bleu_signif.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"
#include "metrics/npy_rng.h"

int nmt_bootstrap_scores(const double *const *stats, int nsys, size_t nseg, int nstats,
                         int n_samples, uint64_t seed, nmt_score_fn fn, const void *ctx,
                         double *out) {
  double *sum = malloc(sizeof *sum * (size_t)nsys * nstats);
  if (!sum) return nmt_fail(NMT_EIO, "out of memory");
  nmt_npy_rng rng;
  nmt_npy_rng_seed(&rng, seed);
  for (int k = 0; k < n_samples; k++) {
    memset(sum, 0, sizeof *sum * (size_t)nsys * nstats);
    for (size_t i = 0; i < nseg; i++) {
      size_t j = (size_t)nmt_npy_below(&rng, nseg);
      for (int s = 0; s < nsys; s++)
        for (int t = 0; t < nstats; t++) sum[s * nstats + t] += stats[s][j * nstats + t];
    }
    for (int s = 0; s < nsys; s++) out[(size_t)s * n_samples + k] = fn(ctx, sum + s * nstats, true);
  }
  free(sum);
  return NMT_OK;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* numpy's pairwise summation (blocks of 128, 8 accumulators). */
static double pairwise(const double *a, size_t n, bool f32) {
  if (n < 8) {
    double r = 0;
    for (size_t i = 0; i < n; i++) r = f32 ? (float)(r + a[i]) : r + a[i];
    return r;
  }
  if (n <= 128) {
    double r[8];
    for (int k = 0; k < 8; k++) r[k] = a[k];
    size_t i;
    for (i = 8; i < n - n % 8; i += 8)
      for (int k = 0; k < 8; k++) r[k] = f32 ? (float)(r[k] + a[i + k]) : r[k] + a[i + k];
    double res;
    if (f32) res = (float)((float)((float)(r[0] + r[1]) + (float)(r[2] + r[3])) +
                           (float)((float)(r[4] + r[5]) + (float)(r[6] + r[7])));
    else res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) res = f32 ? (float)(res + a[i]) : res + a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  double s = pairwise(a, n2, f32) + pairwise(a + n2, n - n2, f32);
  return f32 ? (float)s : s;
}

/* np.add.reduce: the first element, then the pairwise sum of the rest */
static double np_sum(const double *a, size_t n, bool f32) {
  if (!n) return 0;
  double s = a[0] + pairwise(a + 1, n - 1, f32);
  return f32 ? (float)s : s;
}

void nmt_estimate_ci(double *scores, int n, bool f32, double *mean, double *ci) {
  double m = np_sum(scores, (size_t)n, f32) / n;
  *mean = f32 ? (float)m : m;
  qsort(scores, (size_t)n, sizeof *scores, cmp_double);
  int lo = n / 40, hi = n - lo - 1;
  *ci = 0.5 * (scores[hi] - scores[lo]);
}

/* (count of stats > diff, + 1) / (n + 1), as multeval */
static double p_value(const double *st, int n, double diff) {
  int c = 0;
  for (int i = 0; i < n; i++) c += st[i] > diff;
  return (double)(c + 1) / (n + 1);
}

int nmt_paired_bs_pvalue(const double *bl, const double *sys, int n, double diff, double *p) {
  double *d = calloc((size_t)n, sizeof *d);
  if (!d) return nmt_fail(NMT_EIO, "out of memory");
  for (int i = 0; i < n; i++) d[i] = fabs(sys[i] - bl[i]);
  double mean = np_sum(d, (size_t)n, false) / n;
  for (int i = 0; i < n; i++) d[i] -= mean;
  *p = p_value(d, n, diff);
  free(d);
  return NMT_OK;
}

int nmt_paired_ar_pvalue(const double *bl_stats, const double *sys_stats, size_t nseg,
                         int nstats, int n_trials, uint64_t seed, nmt_score_fn fn,
                         const void *ctx, double diff, double *p) {
  double *a = malloc(sizeof *a * (size_t)nstats * 2), *d = malloc(sizeof *d * (size_t)n_trials);
  if (!a || !d) { free(a); free(d); return nmt_fail(NMT_EIO, "out of memory"); }
  double *b = a + nstats;
  nmt_npy_rng rng;
  nmt_npy_rng_seed(&rng, seed);
  int bcnt = 0;
  uint32_t buf = 0;
  for (int k = 0; k < n_trials; k++) {
    memset(a, 0, sizeof *a * (size_t)nstats * 2);
    for (size_t i = 0; i < nseg; i++) {
      bool pos = nmt_npy_bool(&rng, &bcnt, &buf);
      const double *x = (pos ? bl_stats : sys_stats) + i * nstats, *y = (pos ? sys_stats : bl_stats) + i * nstats;
      for (int t = 0; t < nstats; t++) { a[t] += x[t]; b[t] += y[t]; }
    }
    d[k] = fabs(fn(ctx, a, false) - fn(ctx, b, false));
  }
  *p = p_value(d, n_trials, diff);
  free(a);
  free(d);
  return NMT_OK;
}

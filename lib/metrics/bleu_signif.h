/* sacreBLEU's statistical tests on per-segment statistics: bootstrap
 * confidence intervals, paired bootstrap resampling and paired approximate
 * randomisation, drawing the same numpy random stream (SACREBLEU_SEED). */
#ifndef NMT_METRICS_BLEU_SIGNIF_H
#define NMT_METRICS_BLEU_SIGNIF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Score of summed statistics; f32 mimics numpy's float32 resample sums. */
typedef double (*nmt_score_fn)(const void *ctx, const double *stats, bool f32);

/* Each function that allocates returns NMT_OK or NMT_EIO (out of memory). */

/* For each of nsys systems (stats[s]: nseg x nstats, row-major), the scores of
 * n_samples bootstrap resamples, all systems on the same resampled segments:
 * out[s * n_samples + k]. */
int nmt_bootstrap_scores(const double *const *stats, int nsys, size_t nseg, int nstats,
                         int n_samples, uint64_t seed, nmt_score_fn fn, const void *ctx,
                         double *out);

/* sacreBLEU's estimate_ci: mean and half the 95% interval of the sorted scores.
 * Sorts `scores`. f32: numpy float32 mean. */
void nmt_estimate_ci(double *scores, int n, bool f32, double *mean, double *ci);

/* *p = paired bootstrap p-value of sys vs baseline from their resample scores
 * and the actual absolute score difference. */
int nmt_paired_bs_pvalue(const double *bl, const double *sys, int n, double diff, double *p);

/* *p = paired approximate randomisation p-value: n_trials random swaps of
 * segments between the two systems. */
int nmt_paired_ar_pvalue(const double *bl_stats, const double *sys_stats, size_t nseg,
                         int nstats, int n_trials, uint64_t seed, nmt_score_fn fn,
                         const void *ctx, double diff, double *p);

#endif

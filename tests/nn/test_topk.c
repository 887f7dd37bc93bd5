/* The beam's candidates (nn_topk_rows) against a plain selection: the k2 best
 * of base + logp over a row's K hypotheses, ties to the earlier candidate,
 * `skip` and finished hypotheses (base -inf) left out, at vocabularies that do
 * and do not fill the 8-wide groups. */
#include "nn/kernels.h"
#include "test.h"
#include <math.h>
#include <stdlib.h>

/* The best of what is left: the first candidate of the highest score. */
static void plain_topk(float *s, int *ix, const float *logp, const float *base, int K, int V, int skip, int k2) {
  char *used = calloc((size_t)K * V, 1);
  for (int i = 0; i < k2; i++) {
    s[i] = -INFINITY, ix[i] = -1;
    for (int c = 0; c < K * V; c++) {
      float v = base[c / V] + logp[c];
      if (!used[c] && c % V != skip && base[c / V] != -INFINITY && (ix[i] < 0 || v > s[i])) s[i] = v, ix[i] = c;
    }
    if (ix[i] >= 0) used[ix[i]] = 1;
  }
  free(used);
}

TEST(nn_topk_rows_matches_plain_selection) {
  static const int Vs[] = {5, 8, 37, 64, 203};
  unsigned seed = 7;
  for (size_t t = 0; t < sizeof Vs / sizeof *Vs; t++) {
    int V = Vs[t], K = 3, n = 2, k2 = 2 * K;
    float *logp = malloc(sizeof *logp * (size_t)n * K * V), base[6], s[12], want_s[6];
    int ix[12], want_ix[6];
    for (int i = 0; i < n * K * V; i++) /* few distinct values: many ties */
      logp[i] = -(float)((seed = seed * 1103515245u + 12345u) >> 16 & 15) / 4;
    for (int r = 0; r < n * K; r++) base[r] = r == 4 ? -INFINITY : -(float)r / 8;
    nn_topk_rows(s, ix, logp, base, n, K, V, 1, k2);
    for (int b = 0; b < n; b++) {
      plain_topk(want_s, want_ix, logp + (size_t)b * K * V, base + b * K, K, V, 1, k2);
      for (int i = 0; i < k2; i++) {
        CHECK(s[b * k2 + i] == want_s[i]);
        CHECK_INT(ix[b * k2 + i], want_ix[i]);
      }
    }
    free(logp);
  }
}

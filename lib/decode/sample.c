/* Drawing a hypothesis's next token; see decode/sample.h. */
#include "decode/sample.h"
#include "base/err.h"
#include "text/vocab.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The k-th largest of a[0..n) (1 <= k <= n), a reordered: quickselect on the median of three. */
static float kth_largest(float *a, int n, int k) {
  int lo = 0, hi = n - 1, want = k - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    float x = a[lo], y = a[mid], z = a[hi];
    float pivot = x > y ? (y > z ? y : x > z ? z : x) : (x > z ? x : y > z ? z : y);
    int i = lo, j = hi;
    while (i <= j) { /* larger first */
      while (a[i] > pivot) i++;
      while (a[j] < pivot) j--;
      if (i <= j) {
        float t = a[i];
        a[i++] = a[j], a[j--] = t;
      }
    }
    if (want <= j) hi = j;
    else if (want >= i) lo = i;
    else return a[want];
  }
  return a[want];
}

/* Which tokens row s (V scores, <pad> at -inf) may draw from: keep[v]. Top-k: the k
 * highest, those equal to the k-th from the lowest token up. */
static void choose(const nmt_sampling *o, const float *s, int V, float *scratch, unsigned char *keep) {
  if (o->kind != NMT_SAMPLE_TOPK || o->topk >= V) {
    for (int v = 0; v < V; v++) keep[v] = v != NMT_PAD;
    return;
  }
  memcpy(scratch, s, sizeof *s * (size_t)V);
  float kth = kth_largest(scratch, V, o->topk);
  int above = 0;
  for (int v = 0; v < V; v++) above += keep[v] = s[v] > kth;
  for (int v = 0; v < V && above < o->topk; v++)
    if (s[v] == kth && v != NMT_PAD) keep[v] = 1, above++;
}

/* The token that u picks from row s's kept tokens, p ∝ exp((s - max) / T), walked from
 * the lowest token up; -1 when none has weight. */
static int draw(const float *s, const unsigned char *keep, int V, float T, float u, float *w) {
  float top = -INFINITY;
  for (int v = 0; v < V; v++)
    if (keep[v] && s[v] > top) top = s[v];
  if (top == -INFINITY) return -1;
  double total = 0;
  for (int v = 0; v < V; v++) total += w[v] = keep[v] ? expf((s[v] - top) / T) : 0.0f;
  double at = (double)u * total, sum = 0;
  int last = -1;
  for (int v = 0; v < V; v++) {
    if (w[v] <= 0) continue;
    last = v;
    if ((sum += w[v]) > at) return v;
  }
  return last; /* rounding: the last token with weight */
}

int nmt_sample_candidates(const nmt_sampling *o, const float *logp, const float *base, const float *u, int B, int K,
                          int V, int k2, float *score, int *index) {
  float *s = malloc(sizeof *s * (size_t)V * 3);
  unsigned char *keep = malloc((size_t)V);
  if (!s || !keep) return free(s), free(keep), nmt_fail(NMT_EIO, "out of memory");
  for (int b = 0; b < B; b++) {
    int n = 0;
    for (int k = 0; k < K; k++) {
      int r = b * K + k;
      if (base[r] == -INFINITY) continue;
      const float *x = logp + (size_t)r * V;
      for (int v = 0; v < V; v++) s[v] = v == NMT_PAD ? -INFINITY : base[r] + x[v];
      choose(o, s, V, s + V, keep);
      int v = draw(s, keep, V, o->temperature, u[r], s + 2 * (size_t)V);
      if (v < 0) continue;
      score[b * k2 + n] = s[v], index[b * k2 + n++] = k * V + v;
    }
    for (; n < k2; n++) score[b * k2 + n] = -INFINITY, index[b * k2 + n] = -1;
  }
  free(s), free(keep);
  return NMT_OK;
}

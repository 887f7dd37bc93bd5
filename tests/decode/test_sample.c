/* Drawing a token (decode/sample.h): evenly spaced uniforms give each token its share of
 * the draws, top-k keeps the K best (ties to the lower token), the temperature reshapes
 * the distribution, dead rows give no candidate. */
#include "decode/sample.h"
#include "base/err.h"
#include "test.h"
#include <math.h>

enum { V = 6, DRAWS = 1000 };

/* How often each token is drawn from row x (base 0) with DRAWS evenly spaced uniforms. */
static void counts(const nmt_sampling *o, const float *x, int *n) {
  float base = 0, score[2], u;
  int index[2];
  for (int v = 0; v < V; v++) n[v] = 0;
  for (int i = 0; i < DRAWS; i++) {
    u = ((float)i + 0.5f) / DRAWS;
    CHECK_INT(nmt_sample_candidates(o, x, &base, &u, 1, 1, V, 2, score, index), NMT_OK);
    CHECK(index[0] >= 0 && index[0] < V && index[1] == -1);
    CHECK_NEAR(score[0], x[index[0]], 0);
    n[index[0]]++;
  }
}

/* Token v's share under temperature T, <pad> (0) left out. */
static double share(const float *x, int v, float T, int topk) {
  double sum = 0;
  for (int w = 1; w < V; w++) {
    int better = 0;
    for (int z = 1; z < V; z++) better += x[z] > x[w] || (x[z] == x[w] && z < w);
    if (better < topk) sum += exp(x[w] / T);
  }
  int better = 0;
  for (int z = 1; z < V; z++) better += x[z] > x[v] || (x[z] == x[v] && z < v);
  return v && better < topk ? exp(x[v] / T) / sum : 0;
}

TEST(decode_sample_shares) {
  /* <pad> most likely of all: never drawn */
  const float x[V] = {logf(0.5f), logf(0.05f), logf(0.2f), logf(0.1f), logf(0.1f), logf(0.05f)};
  const struct { nmt_sample_kind kind; int topk; float T; } cases[] = {
      {NMT_SAMPLE_FULL, 0, 1}, {NMT_SAMPLE_FULL, 0, 0.5f}, {NMT_SAMPLE_FULL, 0, 3}, {NMT_SAMPLE_TOPK, 2, 1},
      {NMT_SAMPLE_TOPK, 3, 2}, {NMT_SAMPLE_TOPK, 100, 1}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    nmt_sampling o = {cases[c].kind, cases[c].topk, cases[c].T};
    int n[V], k = o.kind == NMT_SAMPLE_TOPK ? o.topk : V;
    counts(&o, x, n);
    for (int v = 0; v < V; v++) CHECK_NEAR(n[v], DRAWS * share(x, v, o.temperature, k), 1.01);
  }
}

TEST(decode_sample_topk1_is_the_best_lowest_token) {
  const float x[V] = {0, -3, -1, -1, -2, -5}; /* 2 and 3 tie: 2 */
  nmt_sampling o = {NMT_SAMPLE_TOPK, 1, 1};
  int n[V];
  counts(&o, x, n);
  CHECK_INT(n[2], DRAWS);
}

TEST(decode_sample_rows) {
  /* two sentences of K = 2 rows; row 1 dead: no candidate; the layout of nmt_dec_candidates */
  float x[4 * V], base[4] = {-1, -INFINITY, -2, -3}, u[4] = {0.5f, 0.5f, 0.999f, 0.0f}, score[2 * 4];
  int index[2 * 4];
  for (int i = 0; i < 4 * V; i++) x[i] = -(float)(i % V);
  nmt_sampling o = {NMT_SAMPLE_TOPK, 1, 1};
  CHECK_INT(nmt_sample_candidates(&o, x, base, u, 2, 2, V, 4, score, index), NMT_OK);
  CHECK_INT(index[0], 1); /* row 0: token 1 (0 is <pad>) */
  CHECK_INT(index[1], -1);
  CHECK_NEAR(score[0], -2, 0);
  CHECK_INT(index[4], 0 * V + 1);
  CHECK_INT(index[5], 1 * V + 1); /* sentence 1's row k = 1 */
  CHECK_NEAR(score[5], -4, 0);
  CHECK_INT(index[6], -1);
}

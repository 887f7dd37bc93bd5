/* Sampling for back-translation (Edunov et al. 2018; Marian's --output-sampling): a
 * hypothesis's next token drawn from the model's distribution, sharpened or flattened by a
 * temperature, over the whole vocabulary or its K most likely tokens. The draws are
 * uniforms the caller gives (counter-based, nn/rng.h), so a sample depends only on them
 * and on its row's log-probabilities. */
#ifndef NMT_DECODE_SAMPLE_H
#define NMT_DECODE_SAMPLE_H

/* The most samples of a sentence: its row k's draw at step t is index t * NMT_SAMPLE_ROWS + k
 * of the sentence's random stream (decode/search.h, nmt_sent). */
enum { NMT_SAMPLE_ROWS = 1024 };
/* The bounds the tools take: K of top-k (K at or over the vocabulary's size is the
 * whole), and the temperature (> 0). */
#define NMT_SAMPLE_TOPK_MAX 1000000
#define NMT_SAMPLE_TEMPERATURE_MAX 100.0

typedef enum { NMT_SAMPLE_NONE, NMT_SAMPLE_FULL, NMT_SAMPLE_TOPK } nmt_sample_kind;

typedef struct {
  nmt_sample_kind kind;
  int topk;          /* NMT_SAMPLE_TOPK: K >= 1 */
  float temperature; /* > 0: p(v) ∝ exp(log p(v) / T); 1 is the model's distribution */
} nmt_sampling;

/* For each of B sentences of K rows (row r = b*K + k) and each live row (base[r] > -inf),
 * in row order: one candidate, the token v != <pad> that the uniform u[r] in [0, 1) picks
 * from base[r] + logp[r, v] (V columns) under o, scored base[r] + logp[r, v], at index
 * (k*V + v) in the candidate layout of nmt_dec_candidates (score, index: (B, k2), k2 >= K,
 * -1 after the last). Top-k keeps the K highest, ties to the lower token (so topk 1 is
 * greedy's choice). NMT_OK, or NMT_EIO when out of memory. */
int nmt_sample_candidates(const nmt_sampling *o, const float *logp, const float *base, const float *u, int B, int K,
                          int V, int k2, float *score, int *index);

#endif

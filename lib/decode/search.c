/* Batched beam search; see decode/search.h. */
#include "decode/search.h"
#include "decode/constrained.h"
#include "base/err.h"
#include "nn/rng.h"
#include "text/vocab.h"
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  float score;
  int row, token;
} cand;

/* Per-search bookkeeping: R = B*K rows, each with a token history. */
typedef struct {
  int B, K, R, maxT;
  float *score;   /* (R) summed log-probabilities; -INFINITY: not live */
  int *hist;      /* (R, maxT) tokens so far */
  int *hist_tmp;
  int *prev, *from;
  int *limit;     /* (B) length limit */
  bool *done;     /* (B) */
  int *sent;      /* (B) the input sentence each row block belongs to */
  bool *live;     /* (R) rows with a live hypothesis: the decoder scores only these */
  float *base;       /* (R) score of the live rows, -INFINITY elsewhere: whose expansions count */
  float *cand_score; /* (B, 2K) each sentence's best expansions (nmt_dec_candidates) */
  int *cand_index;
  const nmt_sent *in; /* (the B sentences at the start) their prefixes and random streams */
  int max_prefix;     /* the longest prefix: the steps that may force a token */
  float *u;           /* (R) sampling: each row's uniform of this step */
  nmt_cons *cons;     /* the sentences' constraints (decode/constrained.h); NULL: none */
} search;

static int add_hyp(nmt_nbest *nb, const int *ids, int n, float score, float alpha) {
  nmt_hyp *h = realloc(nb->hyps, sizeof *h * (size_t)(nb->n + 1));
  if (!h) return nmt_fail(NMT_EIO, "out of memory");
  nb->hyps = h;
  h = &h[nb->n++];
  h->ids = malloc(sizeof *ids * (size_t)(n ? n : 1));
  if (!h->ids) return nmt_fail(NMT_EIO, "out of memory");
  memcpy(h->ids, ids, sizeof *ids * (size_t)n);
  h->n = n;
  h->score = score / (alpha > 0 ? powf((float)(n + 1), alpha) : 1.0f);
  return NMT_OK;
}

/* One step for sentence b at time t: choose the next live rows (from, prev,
 * score) from its best 2K expansions, and finish hypotheses. */
static int advance(search *s, int V, int b, int t, float alpha, nmt_nbest *nb) {
  int K = s->K, n = 0, live = 0;
  cand top[2 * K];
  for (int i = 0; i < 2 * K && s->cand_index[b * 2 * K + i] >= 0; i++, n++) {
    int at = s->cand_index[b * 2 * K + i];
    top[i] = (cand){s->cand_score[b * 2 * K + i], b * K + at / V, at % V};
  }
  float next[K];
  int st = NMT_OK;
  /* Marian: each finished hypothesis takes one slot off the beam */
  int cap = K - (*nb).n;
  for (int i = 0; i < n && i < cap && !st; i++) {
    cand c = top[i];
    int *h = s->hist + (size_t)c.row * s->maxT;
    if (c.token == NMT_EOS) {
      st = add_hyp(&(*nb), h, t, c.score, alpha);
      continue;
    }
    int r = b * K + live++;
    s->from[r] = c.row;
    s->prev[r] = c.token;
    next[r - b * K] = c.score;
    s->hist_tmp[(size_t)r * s->maxT + t] = c.token; /* the rest follows in reorder_hist */
  }
  for (int k = 0; k < K; k++) s->score[b * K + k] = k < live ? next[k] : -INFINITY;
  bool at_limit = t + 1 >= s->limit[b];
  for (int k = 0; k < live && at_limit && (*nb).n < K && !st; k++) {
    int r = b * K + k, *h = s->hist_tmp + (size_t)r * s->maxT;
    memcpy(h, s->hist + (size_t)s->from[r] * s->maxT, sizeof(int) * (size_t)t);
    if (!s->cons || nmt_cons_met(s->cons, s->sent[b], h, t + 1)) st = add_hyp(&(*nb), h, t + 1, next[k], alpha);
  }
  if ((*nb).n >= K || !live || at_limit) s->done[b] = true;
  return st;
}

/* Histories follow their rows: row r continues the history of from[r]. */
static void reorder_hist(search *s, int t) {
  for (int r = 0; r < s->R; r++) {
    if (s->done[r / s->K]) continue;
    int *dst = s->hist_tmp + (size_t)r * s->maxT;
    int tok = dst[t];
    memcpy(dst, s->hist + (size_t)s->from[r] * s->maxT, sizeof(int) * (size_t)t);
    dst[t] = tok;
  }
  int *tmp = s->hist;
  s->hist = s->hist_tmp;
  s->hist_tmp = tmp;
}

static int by_score(const void *a, const void *b) {
  float x = ((const nmt_hyp *)a)->score, y = ((const nmt_hyp *)b)->score;
  return x > y ? -1 : x < y;
}

/* Drop the finished sentences from the search and the decoder once they are an
 * eighth of the batch: a batch runs until its longest sentence ends, and the
 * rows of the finished ones (~20% of all on test2016) cost as much as live ones. */
static int drop_done(search *s, nmt_dec *d, int t) {
  int nb = 0, K = s->K;
  for (int b = 0; b < s->B; b++) nb += !s->done[b];
  if (s->B - nb < (s->B + 7) / 8 || nb == 0) return NMT_OK;
  int *keep = s->prev + s->R - nb; /* scratch: prev is rebuilt below, from its front */
  for (int b = 0, i = 0; b < s->B; b++)
    if (!s->done[b]) keep[i++] = b;
  for (int i = 0; i < nb; i++) {
    int b = keep[i];
    s->sent[i] = s->sent[b], s->limit[i] = s->limit[b], s->done[i] = false;
    for (int k = 0; k < K; k++) {
      int to = i * K + k, from = b * K + k;
      s->score[to] = s->score[from];
      memmove(s->hist + (size_t)to * s->maxT, s->hist + (size_t)from * s->maxT,
              sizeof(int) * (size_t)(t + 1));
    }
  }
  int st = nmt_dec_keep(d, keep, nb);
  for (int i = 0; i < nb * K; i++) s->prev[i] = s->hist[(size_t)i * s->maxT + t];
  s->B = nb, s->R = nb * K;
  return st;
}

/* Each live row of a sentence whose prefix goes on past step t takes its next token:
 * its one candidate, scored as the model scores it (the log-probabilities are the host's). */
static void force_prefix(search *s, const nmt_dec *d, int t) {
  int K = s->K, V = d->V;
  for (int b = 0; b < s->B; b++) {
    const nmt_sent *in = &s->in[s->sent[b]];
    if (s->done[b] || t >= in->prefix_n) continue;
    int n = 0, tok = in->prefix[t];
    for (int k = 0; k < K; k++) {
      int r = b * K + k;
      if (s->base[r] == -INFINITY) continue;
      s->cand_score[b * 2 * K + n] = s->base[r] + d->logp[(size_t)r * V + tok];
      s->cand_index[b * 2 * K + n++] = k * V + tok;
    }
    for (; n < 2 * K; n++) s->cand_index[b * 2 * K + n] = -1;
  }
}

/* The constrained search's candidates of each sentence with constraints (out: the
 * hypotheses finished, each taking a slot off its beam). */
static void constrain(search *s, const nmt_dec *d, int t, const nmt_nbest *out) {
  int K = s->K, V = d->V;
  for (int b = 0; b < s->B; b++) {
    int i = s->sent[b];
    if (s->done[b] || !nmt_cons_has(s->cons, i)) continue;
    nmt_cons_rows rows = {s->base + b * K, d->logp + (size_t)b * K * V, s->hist + (size_t)b * K * s->maxT, K, V,
                          s->maxT, t};
    nmt_cons_select(s->cons, i, &rows, K - out[i].n, s->cand_score + b * 2 * K, s->cand_index + b * 2 * K, 2 * K);
  }
}

/* Step t's candidates: the best 2K expansions of each sentence, or with sampling a
 * drawn token for each live row; then those of the constrained search, and the prefixes'
 * tokens where they go on. */
static int candidates(search *s, nmt_dec *d, const nmt_search_opts *o, int t, const nmt_nbest *out) {
  bool forcing = t < s->max_prefix, sampling = o->sampling.kind != NMT_SAMPLE_NONE;
  /* forcing, sampling and constraints read the log-probabilities on the host */
  nmt_step_args a = {.live = s->live, .shortlist = o->shortlist, .candidates = !forcing && !sampling && !s->cons};
  int st = nmt_dec_step(d, s->prev, &a);
  if (st) return st;
  if (!sampling) st = nmt_dec_candidates(d, s->base, 2 * s->K, s->cand_score, s->cand_index);
  for (int r = 0; sampling && r < s->R; r++) {
    const nmt_sent *in = &s->in[s->sent[r / s->K]];
    s->u[r] = nn_rng_uniform(in->seed, in->stream, (uint64_t)t * NMT_SAMPLE_ROWS + (uint64_t)(r % s->K));
  }
  if (sampling)
    st = nmt_sample_candidates(&o->sampling, d->logp, s->base, s->u, s->B, s->K, d->V, 2 * s->K, s->cand_score,
                               s->cand_index);
  if (!st && s->cons) constrain(s, d, t, out);
  if (!st && forcing) force_prefix(s, d, t);
  return st;
}

static int run(search *s, nmt_dec *d, const nmt_search_opts *o, nmt_nbest *out) {
  int V = d->V, st = NMT_OK;
  for (int t = 0; t < s->maxT && !st; t++) {
    for (int r = 0; r < s->R; r++) {
      s->live[r] = !s->done[r / s->K] && s->score[r] != -INFINITY;
      s->base[r] = s->live[r] ? s->score[r] : -INFINITY; /* a finished sentence's rows cost nothing */
    }
    if ((st = candidates(s, d, o, t, out))) break;
    for (int r = 0; r < s->R; r++) s->from[r] = r;
    bool all_done = true;
    for (int b = 0; b < s->B && !st; b++)
      if (!s->done[b]) st = advance(s, V, b, t, o->normalize, &out[s->sent[b]]);
    for (int b = 0; b < s->B; b++) all_done &= s->done[b];
    if (st || all_done) break;
    reorder_hist(s, t);
    if (!(st = nmt_dec_reorder(d, s->from))) st = drop_done(s, d, t);
  }
  return st;
}

/* Time-major source with </s> and padding. */
static int *source_batch(const nmt_sent *in, int B, int S, int *len) {
  int *x = malloc(sizeof *x * (size_t)S * B);
  if (!x) return NULL;
  for (int b = 0; b < B; b++) {
    len[b] = in[b].src_n + 1;
    for (int t = 0; t < S; t++) x[t * B + b] = t < in[b].src_n ? in[b].src[t] : t == in[b].src_n ? NMT_EOS : NMT_PAD;
  }
  return x;
}

int nmt_search_limit(const nmt_search_opts *o, int src_n, int prefix_n) {
  int n = (int)ceilf(o->max_length_factor * (float)(src_n + 1));
  n = n > prefix_n ? n : prefix_n + 1;
  return n < 1 ? 1 : n;
}

/* Each sentence's length limit (room for its prefix and a token after it) and the longest. */
static int set_limits(search *s, const nmt_search_opts *o) {
  int maxT = 1;
  for (int b = 0; b < s->B; b++) {
    s->limit[b] = nmt_search_limit(o, s->in[b].src_n, s->in[b].prefix_n);
    maxT = s->limit[b] > maxT ? s->limit[b] : maxT;
    s->max_prefix = s->in[b].prefix_n > s->max_prefix ? s->in[b].prefix_n : s->max_prefix;
  }
  return maxT;
}

static int search_alloc(search *s) {
  int B = s->B, K = s->K, R = s->R;
  s->score = malloc(sizeof *s->score * (size_t)R);
  s->hist = calloc((size_t)R * s->maxT, sizeof *s->hist);
  s->hist_tmp = calloc((size_t)R * s->maxT, sizeof *s->hist_tmp);
  s->prev = malloc(sizeof *s->prev * (size_t)R);
  s->from = malloc(sizeof *s->from * (size_t)R);
  s->done = calloc((size_t)B, sizeof *s->done);
  s->base = malloc(sizeof *s->base * (size_t)R);
  s->cand_score = malloc(sizeof *s->cand_score * (size_t)B * 2 * K);
  s->cand_index = malloc(sizeof *s->cand_index * (size_t)B * 2 * K);
  s->sent = malloc(sizeof *s->sent * (size_t)B);
  s->live = malloc(sizeof *s->live * (size_t)R);
  s->u = malloc(sizeof *s->u * (size_t)R);
  bool ok = s->score && s->hist && s->hist_tmp && s->prev && s->from && s->done && s->base && s->cand_score &&
            s->cand_index && s->sent && s->live && s->u;
  return ok ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
}

static void search_free(search *s) {
  free(s->limit), free(s->score), free(s->hist), free(s->hist_tmp), free(s->prev), free(s->from), free(s->done);
  free(s->base), free(s->cand_score), free(s->cand_index), free(s->sent), free(s->live), free(s->u);
  nmt_cons_free(s->cons);
}

/* A lexical shortlist's target ids for the batch, into *cols (the caller frees it): the
 * words of its sources and the tokens of its prefixes. */
static int restrict_lexical(nmt_dec *d, const nmt_lex *lex, const nmt_sent *in, int B, int K, int **cols) {
  int *mark = *cols = calloc((size_t)(lex->ntgt ? lex->ntgt : 1), sizeof *mark);
  if (!mark) return nmt_fail(NMT_EIO, "out of memory");
  for (int b = 0; b < B; b++) {
    nmt_lex_mark(lex, in[b].src, in[b].src_n, mark);
    for (int i = 0; i < in[b].prefix_n; i++) mark[in[b].prefix[i]] = 1;
    for (int i = 0; i < in[b].cons_n; i++)
      if (in[b].cons[i] >= 0) mark[in[b].cons[i]] = 1;
  }
  return nmt_dec_restrict(d, mark, nmt_lex_gather(lex, 2 * K, mark));
}

static int search_batch(nmt_dec *d, const nmt_models *e, const nmt_sent *in, int B, const nmt_search_opts *o,
                        nmt_nbest *out) {
  int K = o->beam, S = 0;
  for (int b = 0; b < B; b++) S = in[b].src_n + 1 > S ? in[b].src_n + 1 : S;
  search s = {.B = B, .K = K, .R = B * K, .in = in};
  bool sampling = o->sampling.kind != NMT_SAMPLE_NONE;
  int *len = malloc(sizeof *len * (size_t)B);
  s.limit = malloc(sizeof *s.limit * (size_t)B);
  int st = len && s.limit ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
  if (!st) s.maxT = set_limits(&s, o), st = search_alloc(&s);
  if (!st && !sampling) st = nmt_cons_new(&s.cons, in, B, K, o->joins);
  int *x = st ? NULL : source_batch(in, B, S, len);
  if (!st && !x) st = nmt_fail(NMT_EIO, "out of memory");
  memset(out, 0, sizeof *out * (size_t)B);
  for (int r = 0; !st && r < s.R; r++) {
    s.score[r] = r % K && !sampling ? -INFINITY : 0.0f; /* a beam starts from one row, samples from all */
    s.prev[r] = NMT_BOS;
  }
  for (int b = 0; !st && b < B; b++) s.sent[b] = b;
  int *cols = NULL;
  if (!st) st = nmt_dec_start(d, e, x, len, B, S, K);
  if (!st && o->lex) st = restrict_lexical(d, o->lex, in, B, K, &cols);
  if (!st) st = run(&s, d, o, out);
  free(cols);
  for (int b = 0; b < B; b++) /* none: constraints unmet */
    if (out[b].n) qsort(out[b].hyps, (size_t)out[b].n, sizeof(nmt_hyp), by_score);
  free(x), free(len);
  search_free(&s);
  return st;
}

int nmt_search_sents(nmt_dec *d, const nmt_models *e, const nmt_sent *in, int B, const nmt_search_opts *o,
                     nmt_nbest *out) {
  int st = search_batch(d, e, in, B, o, out);
  bool cons = false;
  for (int b = 0; b < B; b++) cons |= in[b].cons_n > 0;
  return !st && cons && o->sampling.kind == NMT_SAMPLE_NONE ? nmt_cons_retry(d, e, in, B, o, out) : st;
}

int nmt_search(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n, int B,
               const nmt_search_opts *o, nmt_nbest *out) {
  nmt_sent *in = calloc((size_t)(B ? B : 1), sizeof *in);
  if (!in) return nmt_fail(NMT_EIO, "out of memory");
  for (int b = 0; b < B; b++) in[b].src = src[b], in[b].src_n = src_n[b];
  int st = nmt_search_sents(d, e, in, B, o, out);
  free(in);
  return st;
}

void nmt_nbest_free(nmt_nbest *nb) {
  for (int i = 0; i < nb->n; i++) free(nb->hyps[i].ids);
  free(nb->hyps);
  memset(nb, 0, sizeof *nb);
}

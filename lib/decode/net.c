/* Step-wise Luong inference; see decode/net.h. */
#include "decode/net.h"
#include "base/err.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/parallel.h"
#include "nn/vmath.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int graph_status(nn_graph *g) { return g->failed ? nmt_errcode() : NMT_OK; }

/* Rows of x (S*B, F), time-major, repeated K times per sentence → (S*B*K, F). */
static nn_tensor *repeat_rows(nn_graph *g, nn_tensor *x, int S, int B, int K) {
  nn_tensor *y = nn_new(g, S * B * K, x->cols);
  if (!y) return NULL;
  size_t F = (size_t)x->cols;
  for (int s = 0; s < S; s++)
    for (int b = 0; b < B; b++)
      for (int k = 0; k < K; k++)
        memcpy(y->v + ((size_t)(s * B + b) * K + k) * F, x->v + (size_t)(s * B + b) * F, F * sizeof(float));
  return y;
}

static int grow(float **a, size_t *cap, size_t n) {
  if (n <= *cap) return NMT_OK;
  float *b = realloc(*a, n * sizeof *b);
  if (!b) return nmt_fail(NMT_EIO, "out of memory");
  *a = b;
  *cap = n;
  return NMT_OK;
}

/* Room for every state block of R rows. */
static int alloc_states(nmt_dec *d, const nn_enc_out *eo) {
  size_t total = 0;
  d->nstate = eo->nstate;
  for (int i = 0; i < eo->nstate; i++) total += (size_t)d->R * (d->dim[i] = eo->state[i]->cols);
  size_t cap = d->cap_states;
  if (grow(&d->states, &cap, total ? total : 1)) return NMT_EIO;
  d->cap_states = cap;
  float *at = d->states;
  for (int i = 0; i < eo->nstate; i++) d->state[i] = at, at += (size_t)d->R * d->dim[i];
  return NMT_OK;
}

int nmt_dec_start(nmt_dec *d, const nn_net *net, nn_params *p, const int *src,
                  const int *src_len, int B, int S, int K) {
  d->net = net, d->p = p, d->B = B, d->K = K, d->R = B * K, d->S = S;
  d->out_w = nn_net_output_view(&net->cfg, p, &d->out_t);
  d->out_b = nn_params_find(p, "out.b");
  if (d->out_w < 0) return nmt_fail(NMT_EINPUT, "the model has no output layer (out.W)");
  int R = d->R;
  nn_graph *g = &d->enc;
  nn_graph_reset(g, false, 0);
  float *src_mask = nn_floats(g, (size_t)S * B, NULL);
  d->mask = nn_floats(g, (size_t)R * S, NULL);
  d->len = nn_ints(g, (size_t)R, NULL);
  if (g->failed) return graph_status(g);
  for (int r = 0; r < R; r++) d->len[r] = src_len[r / K];
  nn_seq_masks(src_len, S, B, src_mask, NULL); /* the batch's rule: models/batch.h */
  nn_seq_masks(d->len, S, R, NULL, d->mask);
  nn_enc_out eo = {0};
  int st = nn_net_encode(g, net, p, src, src_len, S, B, src_mask, &eo);
  if (!st) st = alloc_states(d, &eo);
  if (st) return st;
  for (int i = 0; i < eo.nstate; i++) /* sentence b's initial state into its K rows */
    for (int r = 0; r < R; r++)
      memcpy(d->state[i] + (size_t)r * d->dim[i], eo.state[i]->v + (size_t)(r / K) * d->dim[i],
             sizeof(float) * d->dim[i]);
  memset(d->mem, 0, sizeof d->mem);
  for (int i = 0; i < eo.nmem; i++) {
    int same = 0; /* a memory given twice (keys that are the annotations) is repeated once */
    while (same < i && eo.mem[same] != eo.mem[i]) same++;
    d->mem[i] = same < i ? d->mem[same] : repeat_rows(g, eo.mem[i], S, B, K);
  }
  return graph_status(g);
}

/* Row-wise log-softmax of logits (n, W) into the first W columns of rows
 * rows[i] (i when rows is NULL) of out (·, V) (exp values pass through out);
 * columns W.. (outside a shortlist) get -inf. Split over the threads (nn_parallel). */
typedef struct {
  float *out;
  const float *x;
  const int *rows;
  int n, W, V;
} log_softmax_job;

static void log_softmax_part(void *ctx, int part, int parts) {
  log_softmax_job *j = ctx;
  int W = j->W;
  for (int i = (int)((long)j->n * part / parts); i < (int)((long)j->n * (part + 1) / parts); i++) {
    const float *a = j->x + (size_t)i * W;
    float *o = j->out + (size_t)(j->rows ? j->rows[i] : i) * j->V, mx = nn_vmax(a, (size_t)W);
    float lz = mx + logf(nn_vexp_sum(o, a, mx, (size_t)W));
    for (int v = 0; v < W; v++) o[v] = a[v] - lz;
    for (int v = W; v < j->V; v++) o[v] = -INFINITY;
  }
}

static void log_softmax(float *out, const float *x, const int *rows, int n, int W, int V) {
  log_softmax_job j = {out, x, rows, n, W, V};
  nn_parallel((size_t)n * W, log_softmax_part, &j);
}

/* The output layer's logits (x->rows, W) over the first W target ids: with a
 * shortlist only those columns of out.W are read (batch 1 is memory-bound);
 * tied, the first W rows of the embedding, in float (a lookup table has no int8 copy). */
static float *output_logits(nn_graph *g, const nmt_dec *d, const nn_tensor *x, int W) {
  nn_tensor *Wo = nn_net_param(g, d->p, d->out_w), *bo = nn_net_param(g, d->p, d->out_b);
  float *y = nn_floats(g, (size_t)x->rows * W, NULL);
  if (!y || !Wo) return NULL;
  for (int r = 0; r < x->rows; r++)
    if (bo) memcpy(y + (size_t)r * W, bo->v, sizeof(float) * W);
    else memset(y + (size_t)r * W, 0, sizeof(float) * W);
  if (d->out_t) {
    nn_gemm(false, true, x->rows, W, x->cols, 1, x->v, x->cols, Wo->v, Wo->cols, 1, y, W);
    return y;
  }
  return nn_gemm_weights(g, x->rows, W, x->v, x->cols, Wo, 1, y, W) ? y : NULL;
}

/* The rows of ht whose scores the search reads (live), or NULL for all. */
static int *live_rows(nn_graph *g, const nmt_dec *d, const bool *live, int *n) {
  *n = d->R;
  if (!live) return NULL;
  int *rows = nn_ints(g, (size_t)d->R, NULL), k = 0;
  for (int r = 0; rows && r < d->R; r++)
    if (live[r]) rows[k++] = r;
  *n = k;
  return rows;
}

/* Rows rows[0..n) (the first n when rows is NULL) of a (·, H) block as a graph input. */
static nn_tensor *input_rows(nn_graph *g, const float *a, const int *rows, int n, int H) {
  nn_tensor *t = nn_new(g, n, H);
  for (int i = 0; t && i < n; i++)
    memcpy(t->v + (size_t)i * H, a + (size_t)(rows ? rows[i] : i) * H, sizeof(float) * H);
  return t;
}

/* The inverse: row i of t (n, H) into row rows[i] (i when rows is NULL) of a. */
static void store_rows(float *a, const nn_tensor *t, const int *rows) {
  for (int i = 0; i < t->rows; i++)
    memcpy(a + (size_t)(rows ? rows[i] : i) * t->cols, t->v + (size_t)i * t->cols,
           sizeof(float) * t->cols);
}

/* The family's step runs on the live rows only (dead beam rows are ~20% of
 * them; their state is never read again). */
int nmt_dec_step(nmt_dec *d, const int *prev, const nmt_step_args *args) {
  static const nmt_step_args all = {0};
  const nmt_step_args *a = args ? args : &all;
  nn_graph *g = &d->step;
  const nn_net *m = d->net;
  int R = d->R, V = m->cfg.tgt_vocab;
  int W = a->shortlist <= 0 ? V : a->shortlist < 2 * d->K ? 2 * d->K : a->shortlist;
  W = W < V ? W : V;
  nn_graph_reset(g, false, 0);
  int n, *rows = live_rows(g, d, a->live, &n);
  if (!n) rows = NULL, n = R; /* no search row alive: all */
  const int *lrows = n < R ? rows : NULL; /* the rows the step runs on; NULL: all */
  int *ids = nn_ints(g, (size_t)n, NULL);
  for (int i = 0; ids && i < n; i++) ids[i] = prev[lrows ? lrows[i] : i];
  nn_tensor *state[NN_NET_MAX_STATE];
  for (int i = 0; i < d->nstate; i++) state[i] = input_rows(g, d->state[i], lrows, n, d->dim[i]);
  nn_dec_ctx ctx = {d->mem, d->mask, d->len, d->S, R, lrows, n};
  nn_tensor *att = NULL;
  nn_tensor *out = g->failed ? NULL : nn_net_step(g, m, d->p, ids, state, &ctx, a->align ? &att : NULL);
  float *logits = out ? output_logits(g, d, out, W) : NULL;
  if (g->failed || !logits) return graph_status(g);
  if (a->align && !att) return nmt_fail(NMT_EUSAGE, "alignments need a model with attention");
  for (int i = 0; i < d->nstate; i++) store_rows(d->state[i], state[i], lrows);
  if (grow(&d->logp, &d->cap_logp, (size_t)R * V)) return NMT_EIO;
  if (a->align && att) {
    if (grow(&d->align, &d->cap_align, (size_t)R * d->S)) return NMT_EIO;
    store_rows(d->align, att, lrows);
  }
  log_softmax(d->logp, logits, lrows, n, W, V);
  return NMT_OK;
}

/* Gather rows of a (R, H) block in place through a scratch copy. */
static void gather(float *a, float *tmp, const int *from, int R, int H) {
  memcpy(tmp, a, sizeof(float) * (size_t)R * H);
  for (int r = 0; r < R; r++) memcpy(a + (size_t)r * H, tmp + (size_t)from[r] * H, sizeof(float) * H);
}

int nmt_dec_reorder(nmt_dec *d, const int *from) {
  int R = d->R, r = 0, widest = 1;
  while (r < R && from[r] == r) r++;
  if (r == R) return NMT_OK; /* greedy, or a beam that kept its order */
  for (int i = 0; i < d->nstate; i++) widest = d->dim[i] > widest ? d->dim[i] : widest;
  if (grow(&d->tmp, &d->cap_tmp, (size_t)R * widest)) return NMT_EIO;
  for (int i = 0; i < d->nstate; i++) gather(d->state[i], d->tmp, from, R, d->dim[i]);
  return NMT_OK;
}

/* Row r' of a (R', F) block takes row rows[r'] of the (R, F) one, in place:
 * rows ascend, so no row is overwritten before it is read. */
static void keep_rows(float *a, const int *rows, int n, size_t F) {
  for (int r = 0; r < n; r++) memmove(a + (size_t)r * F, a + (size_t)rows[r] * F, F * sizeof *a);
}

int nmt_dec_keep(nmt_dec *d, const int *keep, int nb) {
  int K = d->K, R = d->R, S = d->S, n = nb * K;
  int *rows = malloc(sizeof *rows * (size_t)(n ? n : 1));
  if (!rows) return nmt_fail(NMT_EIO, "out of memory");
  for (int i = 0; i < n; i++) rows[i] = keep[i / K] * K + i % K;
  for (int i = 0; i < d->nstate; i++) keep_rows(d->state[i], rows, n, (size_t)d->dim[i]);
  keep_rows(d->mask, rows, n, (size_t)S);
  for (int r = 0; r < n; r++) d->len[r] = d->len[rows[r]];
  /* Memory rows are time-major, s*R + r: step s of the kept rows. */
  for (int m = 0; m < NN_NET_MAX_MEM && d->mem[m]; m++) {
    nn_tensor *t = d->mem[m];
    if (t->rows != S * R) continue; /* the same tensor as an earlier memory: done */
    for (int st = 0; st < S; st++)
      for (int r = 0; r < n; r++)
        memmove(t->v + ((size_t)st * n + r) * t->cols, t->v + ((size_t)st * R + rows[r]) * t->cols,
                sizeof(float) * (size_t)t->cols);
    t->rows = S * n;
  }
  free(rows);
  d->B = nb, d->R = n;
  return NMT_OK;
}

void nmt_dec_free(nmt_dec *d) {
  nn_graph_free(&d->enc);
  nn_graph_free(&d->step);
  free(d->states), free(d->logp), free(d->tmp), free(d->align);
  memset(d, 0, sizeof *d);
}

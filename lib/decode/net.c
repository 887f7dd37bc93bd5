/* Step-wise inference of one model or an ensemble; see decode/net.h. */
#include "decode/net.h"
#include "base/err.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/parallel.h"
#include "nn/vmath.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One model of the decoder. */
struct nmt_dec_model {
  const nn_net *net;
  nn_params *p;
  nn_graph enc, step;  /* encoder memory lives for the batch; the step graph is reset each step */
  nn_tensor *mem[NN_NET_MAX_MEM]; /* (S*R, F_i) the encoder's memories per row, NULL after the last */
  float *mask;         /* (R, S) attention mask */
  int *len;            /* (R) source lengths */
  int nstate;
  int dim[NN_NET_MAX_STATE]; /* D_i: the family's state tensor i is (R, D_i) */
  float *state[NN_NET_MAX_STATE]; /* into `states`, room for the first R rows */
  float *states, *logp, *tmp;     /* all state blocks; (R, V) log-probabilities; scratch */
  float *align;        /* (R, S) attention weights, in source order */
  int out_w, out_b;    /* views of the output layer */
  bool out_t;          /* out_w is the tied target embedding (Vt, O): multiplied transposed */
  size_t cap_states, cap_logp, cap_tmp, cap_align;
};

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
static int alloc_states(nmt_dec_model *d, const nn_enc_out *eo, int R) {
  size_t total = 0;
  d->nstate = eo->nstate;
  for (int i = 0; i < eo->nstate; i++) total += (size_t)R * (d->dim[i] = eo->state[i]->cols);
  if (grow(&d->states, &d->cap_states, total ? total : 1)) return NMT_EIO;
  float *at = d->states;
  for (int i = 0; i < eo->nstate; i++) d->state[i] = at, at += (size_t)R * d->dim[i];
  return NMT_OK;
}

/* One model's encoder over src (S*B), in the model's own ids through map (NULL:
 * the ids as given), and its K rows per sentence. */
static int model_start(nmt_dec_model *d, const nn_net *net, nn_params *p, const int *map, const int *src,
                       const int *src_len, int B, int S, int K) {
  d->net = net, d->p = p;
  d->out_w = nn_net_output_view(&net->cfg, p, &d->out_t);
  d->out_b = nn_params_find(p, "out.b");
  if (d->out_w < 0) return nmt_fail(NMT_EINPUT, "the model has no output layer (out.W)");
  int R = B * K;
  nn_graph *g = &d->enc;
  nn_graph_reset(g, false, 0);
  float *src_mask = nn_floats(g, (size_t)S * B, NULL);
  d->mask = nn_floats(g, (size_t)R * S, NULL);
  d->len = nn_ints(g, (size_t)R, NULL);
  int *ids = map ? nn_ints(g, (size_t)S * B, NULL) : (int *)src;
  if (g->failed) return graph_status(g);
  for (int i = 0; map && i < S * B; i++) ids[i] = map[src[i]];
  for (int r = 0; r < R; r++) d->len[r] = src_len[r / K];
  nn_seq_masks(src_len, S, B, src_mask, NULL); /* the batch's rule: models/batch.h */
  nn_seq_masks(d->len, S, R, NULL, d->mask);
  nn_enc_out eo = {0};
  int st = nn_net_encode(g, net, p, ids, src_len, S, B, src_mask, &eo);
  if (!st) st = alloc_states(d, &eo, R);
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

int nmt_dec_start(nmt_dec *d, const nmt_models *e, const int *src, const int *src_len, int B, int S, int K) {
  if (e->n > d->cap_model) {
    nmt_dec_model *m = realloc(d->model, sizeof *m * (size_t)e->n);
    if (!m) return nmt_fail(NMT_EIO, "out of memory");
    memset(m + d->cap_model, 0, sizeof *m * (size_t)(e->n - d->cap_model));
    d->model = m, d->cap_model = e->n;
  }
  d->nmodel = e->n, d->B = B, d->K = K, d->R = B * K, d->S = S, d->V = e->net[0]->cfg.tgt_vocab;
  memcpy(d->weight, e->weight, sizeof d->weight);
  int st = NMT_OK;
  for (int i = 0; i < e->n && !st; i++)
    st = model_start(&d->model[i], e->net[i], e->p[i], e->src_map[i], src, src_len, B, S, K);
  return st;
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
static float *output_logits(nn_graph *g, const nmt_dec_model *d, const nn_tensor *x, int W) {
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

/* The rows whose scores the search reads (live), or NULL for all; no row
 * alive (nothing left to search) counts as all. */
static int *live_rows(nn_graph *g, int R, const bool *live, int *n) {
  *n = R;
  if (!live) return NULL;
  int *rows = nn_ints(g, (size_t)R, NULL), k = 0;
  for (int r = 0; rows && r < R; r++)
    if (live[r]) rows[k++] = r;
  *n = k ? k : R;
  return k && k < R ? rows : NULL;
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

/* Attention rows of a model reading the source reversed (memory row s holds
 * token len-1-s, </s> first) into source order, so that ensembles can mix them. */
static void source_order(float *a, const int *len, const int *rows, int n, int S) {
  for (int i = 0; i < n; i++) {
    int r = rows ? rows[i] : i;
    float *x = a + (size_t)r * S;
    for (int lo = 0, hi = len[r] - 1; lo < hi; lo++, hi--) {
      float t = x[lo];
      x[lo] = x[hi], x[hi] = t;
    }
  }
}

/* One model's step on rows lrows[0..n) (NULL: all R): its states, its
 * log-probabilities over the first W of V target ids and, when asked, its
 * attention. The family's step runs on the live rows only (dead beam rows are
 * ~20% of them; their state is never read again). */
static int model_step(nmt_dec_model *d, const int *prev, const nmt_step_args *a, const int *lrows, int n, int R,
                      int S, int W, int V) {
  nn_graph *g = &d->step;
  int *ids = nn_ints(g, (size_t)n, NULL);
  for (int i = 0; ids && i < n; i++) ids[i] = prev[lrows ? lrows[i] : i];
  nn_tensor *state[NN_NET_MAX_STATE];
  for (int i = 0; i < d->nstate; i++) state[i] = input_rows(g, d->state[i], lrows, n, d->dim[i]);
  nn_dec_ctx ctx = {d->mem, d->mask, d->len, S, R, lrows, n};
  nn_tensor *att = NULL;
  nn_tensor *out = g->failed ? NULL : nn_net_step(g, d->net, d->p, ids, state, &ctx, a->align ? &att : NULL);
  float *logits = out ? output_logits(g, d, out, W) : NULL;
  if (g->failed || !logits) return graph_status(g);
  if (a->align && !att) return nmt_fail(NMT_EUSAGE, "alignments need a model with attention");
  for (int i = 0; i < d->nstate; i++) store_rows(d->state[i], state[i], lrows);
  if (grow(&d->logp, &d->cap_logp, (size_t)R * V)) return NMT_EIO;
  if (a->align) {
    if (grow(&d->align, &d->cap_align, (size_t)R * S)) return NMT_EIO;
    store_rows(d->align, att, lrows);
    if (d->net->cfg.opt.reverse_source) source_order(d->align, d->len, lrows, n, S);
  }
  log_softmax(d->logp, logits, lrows, n, W, V);
  return NMT_OK;
}

/* out's rows lrows[0..n) (NULL: all) = Σ_m w[m] · in[m]'s rows of H columns:
 * an ensemble's log-probabilities (Marian's weighted sum) and attention (the mean). */
static void mix_rows(float *out, const float *const *in, const float *w, int nin, const int *lrows, int n, int H) {
  for (int i = 0; i < n; i++) {
    size_t at = (size_t)(lrows ? lrows[i] : i) * H;
    for (int j = 0; j < H; j++) out[at + j] = w[0] * in[0][at + j];
    for (int m = 1; m < nin; m++)
      for (int j = 0; j < H; j++) out[at + j] += w[m] * in[m][at + j];
  }
}

int nmt_dec_step(nmt_dec *d, const int *prev, const nmt_step_args *args) {
  static const nmt_step_args all = {0};
  const nmt_step_args *a = args ? args : &all;
  int R = d->R, V = d->V, st = NMT_OK;
  int W = a->shortlist <= 0 ? V : a->shortlist < 2 * d->K ? 2 * d->K : a->shortlist;
  W = W < V ? W : V;
  for (int m = 0; m < d->nmodel && !st; m++) {
    nn_graph_reset(&d->model[m].step, false, 0);
    int n, *lrows = live_rows(&d->model[m].step, R, a->live, &n);
    st = d->model[m].step.failed ? graph_status(&d->model[m].step)
                                 : model_step(&d->model[m], prev, a, lrows, n, R, d->S, W, V);
  }
  if (st) return st;
  if (d->nmodel == 1) { /* one model's are the decoder's, unchanged */
    d->logp = d->model[0].logp, d->align = d->model[0].align;
    return NMT_OK;
  }
  int n, *lrows = live_rows(&d->model[0].step, R, a->live, &n); /* the rows the models computed */
  if (d->model[0].step.failed) return graph_status(&d->model[0].step);
  const float *logp[NMT_MAX_MODELS], *align[NMT_MAX_MODELS];
  float mean[NMT_MAX_MODELS];
  for (int m = 0; m < d->nmodel; m++)
    logp[m] = d->model[m].logp, align[m] = d->model[m].align, mean[m] = 1.0f / (float)d->nmodel;
  if (grow(&d->sum_logp, &d->cap_sum_logp, (size_t)R * V)) return NMT_EIO;
  mix_rows(d->logp = d->sum_logp, logp, d->weight, d->nmodel, lrows, n, V);
  if (a->align) {
    if (grow(&d->sum_align, &d->cap_sum_align, (size_t)R * d->S)) return NMT_EIO;
    mix_rows(d->align = d->sum_align, align, mean, d->nmodel, lrows, n, d->S);
  }
  return NMT_OK;
}

/* Gather rows of a (R, H) block in place through a scratch copy. */
static void gather(float *a, float *tmp, const int *from, int R, int H) {
  memcpy(tmp, a, sizeof(float) * (size_t)R * H);
  for (int r = 0; r < R; r++) memcpy(a + (size_t)r * H, tmp + (size_t)from[r] * H, sizeof(float) * H);
}

static int model_reorder(nmt_dec_model *d, const int *from, int R) {
  int widest = 1;
  for (int i = 0; i < d->nstate; i++) widest = d->dim[i] > widest ? d->dim[i] : widest;
  if (grow(&d->tmp, &d->cap_tmp, (size_t)R * widest)) return NMT_EIO;
  for (int i = 0; i < d->nstate; i++) gather(d->state[i], d->tmp, from, R, d->dim[i]);
  return NMT_OK;
}

int nmt_dec_reorder(nmt_dec *d, const int *from) {
  int R = d->R, r = 0, st = NMT_OK;
  while (r < R && from[r] == r) r++;
  if (r == R) return NMT_OK; /* greedy, or a beam that kept its order */
  for (int m = 0; m < d->nmodel && !st; m++) st = model_reorder(&d->model[m], from, R);
  return st;
}

/* Row r' of a (R', F) block takes row rows[r'] of the (R, F) one, in place:
 * rows ascend, so no row is overwritten before it is read. */
static void keep_rows(float *a, const int *rows, int n, size_t F) {
  for (int r = 0; r < n; r++) memmove(a + (size_t)r * F, a + (size_t)rows[r] * F, F * sizeof *a);
}

static void model_keep(nmt_dec_model *d, const int *rows, int n, int R, int S) {
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
}

int nmt_dec_keep(nmt_dec *d, const int *keep, int nb) {
  int K = d->K, n = nb * K;
  int *rows = malloc(sizeof *rows * (size_t)(n ? n : 1));
  if (!rows) return nmt_fail(NMT_EIO, "out of memory");
  for (int i = 0; i < n; i++) rows[i] = keep[i / K] * K + i % K;
  for (int m = 0; m < d->nmodel; m++) model_keep(&d->model[m], rows, n, d->R, d->S);
  free(rows);
  d->B = nb, d->R = n;
  return NMT_OK;
}

void nmt_dec_free(nmt_dec *d) {
  for (int m = 0; m < d->cap_model; m++) {
    nmt_dec_model *x = &d->model[m];
    nn_graph_free(&x->enc);
    nn_graph_free(&x->step);
    free(x->states), free(x->logp), free(x->tmp), free(x->align);
  }
  free(d->model), free(d->sum_logp), free(d->sum_align);
  memset(d, 0, sizeof *d);
}

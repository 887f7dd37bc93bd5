/* Step-wise inference of one model or an ensemble; see decode/net.h. */
#include "decode/net.h"
#include "decode/out_cols.h"
#include "base/err.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/parallel.h"
#include "nn/vmath.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One model of the decoder. Its states, memories, mask and lengths live in its
 * parameters' backend (a GPU's memory, or the host's); the host keeps the
 * lengths too, and gets the log-probabilities and attention weights. */
struct nmt_dec_model {
  const nmt_net *net;
  nn_params *p;
  const nn_backend *be;
  nn_graph enc, step;  /* encoder memory lives for the batch; the step graph is reset each step */
  nn_tensor *mem[NMT_NET_MAX_MEM]; /* (S*R, F_i) the encoder's memories per row, NULL after the last */
  float *mask;         /* (R, S) attention mask */
  int *len, *len_host; /* (R) source lengths */
  int nstate;
  int dim[NMT_NET_MAX_STATE]; /* D_i: the family's state tensor i is (R, D_i) */
  float *state[NMT_NET_MAX_STATE]; /* into `states`, room for the first R rows */
  float *states, *tmp, *logp_dev; /* the backend's: all state blocks; scratch; (R, V) log-probabilities */
  float *logp, *att;   /* the host's: (R, V) log-probabilities; (R, S) scratch for attention rows */
  float *align;        /* (R, S) attention weights, in source order */
  int out_w, out_b;    /* views of the output layer */
  bool out_t;          /* out_w is the tied target embedding (Vt, O): multiplied transposed */
  nmt_out_cols cols;   /* a lexical shortlist's part of the output layer (nmt_dec_restrict) */
  float *logp_cols;    /* (R, W) the host's: its rows' log-probabilities over those ids alone */
  size_t cap_logp_cols;
  size_t cap_states, cap_tmp, cap_logp_dev, cap_logp, cap_att, cap_align;
};

static int graph_status(nn_graph *g) { return g->failed ? nmt_errcode() : NMT_OK; }

static int grow(float **a, size_t *cap, size_t n) {
  if (n <= *cap) return NMT_OK;
  float *b = realloc(*a, n * sizeof *b);
  if (!b) return nmt_fail(NMT_EIO, "out of memory");
  *a = b;
  *cap = n;
  return NMT_OK;
}

/* The same in the backend's memory (contents not kept). */
static int grow_on(const nn_backend *be, float **a, size_t *cap, size_t n) {
  if (n <= *cap) return NMT_OK;
  void *b = NULL;
  int st = be->alloc(&b, n * sizeof(float));
  if (st) return st;
  be->free(*a);
  *a = b;
  *cap = n;
  return NMT_OK;
}

/* y (n, H) = rows ids[0..n) of x (·, H) (a plain copy of the first n when ids is NULL). */
static int gather_rows(const nn_backend *be, float *y, const float *x, const int *ids, int n, int H) {
  if (ids) return be->gather_fwd(y, x, ids, n, H), NMT_OK;
  return be->copy(y, x, sizeof(float) * (size_t)n * H);
}

/* Row ids[i] of a (·, H) block in place := row i of x (n, H) (the first n when ids is NULL). */
static int scatter_rows(const nn_backend *be, float *a, const float *x, const int *ids, int n, int H) {
  if (ids) return be->scatter_rows(a, ids, x, n, H), NMT_OK;
  return be->copy(a, x, sizeof(float) * (size_t)n * H);
}

/* Rows of x (S*B, F), time-major, repeated K times per sentence → (S*B*K, F). */
static nn_tensor *repeat_rows(nn_graph *g, nn_tensor *x, int S, int B, int K) {
  nn_tensor *y = nn_new(g, S * B * K, x->cols);
  int *from = nn_alloc(g, sizeof(int) * (size_t)S * B * K);
  if (!y || !from) return NULL;
  for (int i = 0; i < S * B * K; i++) from[i] = i / K; /* row (s*B + b)*K + k reads s*B + b */
  const int *ids = nn_ints(g, (size_t)S * B * K, from);
  return ids && !gather_rows(g->be, y->v, x->v, ids, S * B * K, x->cols) ? y : NULL;
}

/* The rows' masks and lengths in the backend's memory, from the host's lengths. */
static int upload_lengths(nmt_dec_model *d, int R, int S) {
  nn_graph *g = &d->enc;
  float *mask = nn_alloc(g, sizeof(float) * (size_t)R * S);
  if (!mask) return graph_status(g);
  nmt_seq_masks(d->len_host, S, R, NULL, mask); /* the batch's rule: models/batch.h */
  d->mask = nn_floats(g, (size_t)R * S, mask);
  d->len = nn_ints(g, (size_t)R, d->len_host);
  return graph_status(g);
}

/* Room for every state block of R rows, and sentence b's initial state in its K rows. */
static int init_states(nmt_dec_model *d, const nmt_enc_out *eo, int B, int K) {
  nn_graph *g = &d->enc;
  int R = B * K;
  size_t total = 0;
  d->nstate = eo->nstate;
  for (int i = 0; i < eo->nstate; i++) total += (size_t)R * (d->dim[i] = eo->state[i]->cols);
  int st = grow_on(d->be, &d->states, &d->cap_states, total ? total : 1);
  int *from = nn_alloc(g, sizeof(int) * (size_t)R);
  if (st || !from) return st ? st : graph_status(g);
  for (int r = 0; r < R; r++) from[r] = r / K;
  const int *ids = nn_ints(g, (size_t)R, from);
  float *at = d->states;
  for (int i = 0; i < eo->nstate && ids && !st; i++) {
    d->state[i] = at, at += (size_t)R * d->dim[i];
    st = gather_rows(d->be, d->state[i], eo->state[i]->v, ids, R, d->dim[i]);
  }
  return st ? st : graph_status(g);
}

/* One model's encoder over src (S*B), in the model's own ids through map (NULL:
 * the ids as given), and its K rows per sentence. */
static int model_start(nmt_dec_model *d, const nmt_net *net, nn_params *p, const int *map, const int *src,
                       const int *src_len, int B, int S, int K) {
  d->net = net, d->p = p, d->be = p->be ? p->be : &nn_cpu_backend;
  d->out_w = nmt_net_output_view(&net->cfg, p, &d->out_t);
  d->out_b = nn_params_find(p, "out.b");
  if (d->out_w < 0) return nmt_fail(NMT_EINPUT, "the model has no output layer (out.W)");
  int R = B * K;
  nn_graph *g = &d->enc;
  g->be = d->step.be = d->be;
  nn_graph_reset(g, false, 0);
  float *src_mask = nn_alloc(g, sizeof(float) * (size_t)S * B);
  d->len_host = nn_alloc(g, sizeof(int) * (size_t)R);
  int *ids = map ? nn_alloc(g, sizeof(int) * (size_t)S * B) : (int *)src;
  if (g->failed) return graph_status(g);
  for (int i = 0; map && i < S * B; i++) ids[i] = map[src[i]];
  for (int r = 0; r < R; r++) d->len_host[r] = src_len[r / K];
  nmt_seq_masks(src_len, S, B, src_mask, NULL);
  nmt_enc_out eo = {0};
  int st = upload_lengths(d, R, S);
  if (!st) st = nmt_net_encode(g, net, p, ids, src_len, S, B, src_mask, &eo);
  if (!st) st = init_states(d, &eo, B, K);
  if (st) return st;
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
  d->cols = NULL, d->ncols = 0;
  memcpy(d->weight, e->weight, sizeof d->weight);
  int st = NMT_OK;
  for (int i = 0; i < e->n && !st; i++)
    st = model_start(&d->model[i], e->net[i], e->p[i], e->src_map[i], src, src_len, B, S, K);
  return st;
}

/* The output layer's logits (x->rows, W) over the first W target ids, or over a
 * lexical shortlist's (cols): with a shortlist only those columns of out.W are read
 * (batch 1 is memory-bound); tied, the first W rows of the embedding, in float (a
 * lookup table has no int8 copy). */
static float *output_logits(nn_graph *g, const nmt_dec_model *d, const nn_tensor *x, int W, bool cols) {
  nn_tensor *Wo = cols ? (nn_tensor *)&d->cols.w : nmt_net_param(g, d->p, d->out_w);
  nn_tensor *bo = cols ? (d->cols.bias ? &(nn_tensor){.v = d->cols.b, .rows = 1, .cols = W} : NULL)
                       : nmt_net_param(g, d->p, d->out_b);
  float *y = nn_floats(g, (size_t)x->rows * W, NULL);
  if (!y || !Wo) return NULL;
  if (bo) g->be->copy_cols(y, W, bo->v, 0, x->rows, W, 0); /* the bias in every row */
  else if (g->be->zero(y, sizeof(float) * (size_t)x->rows * W)) return NULL;
  if (d->out_t) {
    g->be->gemm(false, true, x->rows, W, x->cols, 1, x->v, x->cols, Wo->v, Wo->cols, 1, y, W);
    return y;
  }
  return nn_gemm_weights(g, x->rows, W, x->v, x->cols, Wo, 1, y, W) ? y : NULL;
}

/* The rows whose scores the search reads (live), or NULL for all; no row
 * alive (nothing left to search) counts as all. In host memory. */
static int *live_rows(nn_graph *g, int R, const bool *live, int *n) {
  *n = R;
  if (!live) return NULL;
  int *rows = nn_alloc(g, sizeof(int) * (size_t)R), k = 0;
  for (int r = 0; rows && r < R; r++)
    if (live[r]) rows[k++] = r;
  *n = k ? k : R;
  return k && k < R ? rows : NULL;
}

/* Rows rows[0..n) (the first n when rows is NULL; the backend's memory) of a (·, H) block as a graph input. */
static nn_tensor *input_rows(nn_graph *g, const float *a, const int *rows, int n, int H) {
  nn_tensor *t = nn_new(g, n, H);
  return t && !gather_rows(g->be, t->v, a, rows, n, H) ? t : NULL;
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

/* Host rows lrows[i] (i when NULL) of d->logp_cols (·, W): the log-softmax of logits (n, W),
 * at the target ids cols[0..W) (the search's candidates are picked there). When a reader of
 * d->logp follows (full: a prefix, sampling, constraints), the same rows of d->logp (·, V)
 * too, -inf at the other ids; else those (R, V) rows are not written at all (at batch 64,
 * 64*5*V floats a step, for a W of a few hundred). */
static int log_softmax_at(nmt_dec_model *d, const int *rows, const int *lrows, const float *logits, int n, int R,
                          int W, int V, const int *cols, bool full) {
  int st = grow(&d->logp_cols, &d->cap_logp_cols, (size_t)R * W);
  if (st) return st;
  nn_cpu_backend.log_softmax_rows(d->logp_cols, rows, logits, n, W, W);
  for (int i = 0; full && i < n; i++) {
    size_t r = (size_t)(lrows ? lrows[i] : i);
    float *row = d->logp + r * V, *y = d->logp_cols + r * W;
    for (int v = 0; v < V; v++) row[v] = -INFINITY;
    for (int j = 0; j < W; j++) row[cols[j]] = y[j];
  }
  return NMT_OK;
}

/* One model's step on rows lrows[0..n) (NULL: all R): its states, its
 * log-probabilities over the first W of V target ids, or over cols[0..W) (a lexical
 * shortlist's), and, when asked, its attention. The family's step runs on the live
 * rows only (dead beam rows are ~20% of them; their state is never read again). */
static int model_step(nmt_dec_model *d, const int *prev, const nmt_step_args *a, const int *lrows, int n, int R,
                      int S, int W, int V, const int *cols, bool keep) {
  nn_graph *g = &d->step;
  const nn_backend *be = d->be;
  int *ids = nn_alloc(g, sizeof(int) * (size_t)n);
  for (int i = 0; ids && i < n; i++) ids[i] = prev[lrows ? lrows[i] : i];
  const int *rows = lrows ? nn_ints(g, (size_t)n, lrows) : NULL; /* the backend's copy */
  nn_tensor *state[NMT_NET_MAX_STATE];
  for (int i = 0; i < d->nstate; i++) state[i] = input_rows(g, d->state[i], rows, n, d->dim[i]);
  nmt_dec_ctx ctx = {d->mem, d->mask, d->len, S, R, rows, n};
  nn_tensor *att = NULL;
  nn_tensor *out = g->failed ? NULL : nmt_net_step(g, d->net, d->p, ids, state, &ctx, a->align ? &att : NULL);
  float *logits = out ? output_logits(g, d, out, W, cols != NULL) : NULL;
  if (g->failed || !logits) return graph_status(g);
  if (a->align && !att) return nmt_fail(NMT_EUSAGE, "alignments need a model with attention");
  int st = NMT_OK;
  for (int i = 0; i < d->nstate && !st; i++) st = scatter_rows(be, d->state[i], state[i]->v, rows, n, d->dim[i]);
  if (!st) st = grow(&d->logp, &d->cap_logp, (size_t)R * V);
  if (!st && a->align) { /* attention rows come to the host: alignments, pictures, unknown words */
    st = grow(&d->align, &d->cap_align, (size_t)R * S);
    if (!st) st = grow(&d->att, &d->cap_att, (size_t)n * S);
    if (!st) st = be->to_host(d->att, att->v, sizeof(float) * (size_t)n * S);
    for (int i = 0; i < n && !st; i++)
      memcpy(d->align + (size_t)(lrows ? lrows[i] : i) * S, d->att + (size_t)i * S, sizeof(float) * S);
    if (!st && d->net->cfg.opt.reverse_source) source_order(d->align, d->len_host, lrows, n, S);
  }
  if (st) return st;
  if (be->host) { /* straight into the host's rows */
    if (cols) return log_softmax_at(d, rows, lrows, logits, n, R, W, V, cols, !a->candidates);
    be->log_softmax_rows(d->logp, rows, logits, n, W, V);
    return NMT_OK;
  }
  st = grow_on(be, &d->logp_dev, &d->cap_logp_dev, (size_t)R * V);
  if (!st) be->log_softmax_rows(d->logp_dev, rows, logits, n, W, V);
  if (st || keep) return st; /* kept: the search's candidates are picked there */
  return be->to_host(d->logp, d->logp_dev, sizeof(float) * (size_t)R * V);
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

int nmt_step_width(int shortlist, int K, int V) {
  int W = shortlist <= 0 ? V : shortlist < 2 * K ? 2 * K : shortlist;
  return W < V ? W : V;
}

int nmt_dec_step(nmt_dec *d, const int *prev, const nmt_step_args *args) {
  static const nmt_step_args all = {0};
  const nmt_step_args *a = args ? args : &all;
  int R = d->R, V = d->V, st = NMT_OK;
  int W = d->ncols ? d->ncols : nmt_step_width(a->shortlist, d->K, V);
  for (int m = 0; m < d->nmodel && !st; m++) {
    nn_graph_reset(&d->model[m].step, false, 0);
    int n, *lrows = live_rows(&d->model[m].step, R, a->live, &n);
    st = d->model[m].step.failed ? graph_status(&d->model[m].step)
                                 : model_step(&d->model[m], prev, a, lrows, n, R, d->S, W, V,
                                              d->ncols ? d->cols : NULL, a->candidates && d->nmodel == 1);
  }
  if (st) return st;
  if (d->nmodel == 1) { /* one model's are the decoder's, unchanged */
    d->logp = d->model[0].logp, d->align = d->model[0].align;
    return NMT_OK;
  }
  int n, *lrows = live_rows(&d->model[0].step, R, a->live, &n); /* the rows the models computed */
  if (d->model[0].step.failed) return graph_status(&d->model[0].step);
  const float *logp[NMT_MAX_MODELS], *lcols[NMT_MAX_MODELS], *align[NMT_MAX_MODELS];
  float mean[NMT_MAX_MODELS];
  for (int m = 0; m < d->nmodel; m++) {
    logp[m] = d->model[m].logp, lcols[m] = d->model[m].logp_cols, align[m] = d->model[m].align;
    mean[m] = 1.0f / (float)d->nmodel;
  }
  if (d->ncols) { /* a lexical shortlist's columns, where nmt_dec_candidates picks */
    if (grow(&d->sum_cols, &d->cap_sum_cols, (size_t)R * d->ncols)) return NMT_EIO;
    mix_rows(d->sum_cols, lcols, d->weight, d->nmodel, lrows, n, d->ncols);
  }
  if (grow(&d->sum_logp, &d->cap_sum_logp, (size_t)R * V)) return NMT_EIO;
  d->logp = d->sum_logp;
  if (!d->ncols || !a->candidates) mix_rows(d->logp, logp, d->weight, d->nmodel, lrows, n, V);
  if (a->align) {
    if (grow(&d->sum_align, &d->cap_sum_align, (size_t)R * d->S)) return NMT_EIO;
    mix_rows(d->align = d->sum_align, align, mean, d->nmodel, lrows, n, d->S);
  }
  return NMT_OK;
}

int nmt_dec_candidates(nmt_dec *d, const float *base, int k2, float *score, int *index) {
  nmt_dec_model *m = &d->model[0];
  size_t picks = (size_t)d->B * k2;
  if (d->ncols) { /* among a lexical shortlist's ids alone */
    int W = d->ncols;
    const float *logp = d->nmodel == 1 ? m->logp_cols : d->sum_cols;
    nn_cpu_backend.topk_rows(score, index, logp, base, d->B, d->K, W, NMT_PAD, k2);
    for (size_t i = 0; i < picks; i++)
      if (index[i] >= 0) index[i] = index[i] / W * d->V + d->cols[index[i] % W];
    return NMT_OK;
  }
  if (d->nmodel > 1 || m->be->host) { /* the log-probabilities are the host's */
    nn_cpu_backend.topk_rows(score, index, d->logp, base, d->B, d->K, d->V, NMT_PAD, k2);
    return NMT_OK;
  }
  nn_graph *g = &m->step; /* this step's graph: its scratch lives until the next step */
  const float *dbase = nn_floats(g, (size_t)d->R, base);
  float *dscore = nn_floats(g, picks, NULL);
  int *dindex = nn_ints(g, picks, NULL);
  if (g->failed) return graph_status(g);
  m->be->topk_rows(dscore, dindex, m->logp_dev, dbase, d->B, d->K, d->V, NMT_PAD, k2);
  int st = m->be->to_host(score, dscore, sizeof(float) * picks);
  return st ? st : m->be->to_host(index, dindex, sizeof(int) * picks);
}

/* Rows from[0..n) of a (·, H) block into its first n rows, through the scratch
 * block (from in the backend's memory). */
static int gather_in_place(nmt_dec_model *d, float *a, const int *from, int n, int H) {
  int st = grow_on(d->be, &d->tmp, &d->cap_tmp, (size_t)n * H);
  if (!st) st = gather_rows(d->be, d->tmp, a, from, n, H);
  return st ? st : d->be->copy(a, d->tmp, sizeof(float) * (size_t)n * H);
}

static int model_reorder(nmt_dec_model *d, const int *from, int R) {
  nn_graph *g = &d->step;
  nn_graph_reset(g, false, 0);
  const int *ids = nn_ints(g, (size_t)R, from);
  int st = graph_status(g);
  for (int i = 0; i < d->nstate && !st; i++) st = gather_in_place(d, d->state[i], ids, R, d->dim[i]);
  return st;
}

int nmt_dec_reorder(nmt_dec *d, const int *from) {
  int R = d->R, r = 0, st = NMT_OK;
  while (r < R && from[r] == r) r++;
  if (r == R) return NMT_OK; /* greedy, or a beam that kept its order */
  for (int m = 0; m < d->nmodel && !st; m++) st = model_reorder(&d->model[m], from, R);
  return st;
}

static int model_keep(nmt_dec_model *d, const int *rows, int n, int R, int S) {
  nn_graph *g = &d->step;
  nn_graph_reset(g, false, 0);
  /* Memory rows are time-major, s*R + r: step s of the kept rows. */
  int *mem_rows = nn_alloc(g, sizeof(int) * (size_t)S * n);
  for (int s = 0; mem_rows && s < S; s++)
    for (int r = 0; r < n; r++) mem_rows[s * n + r] = s * R + rows[r];
  const int *ids = nn_ints(g, (size_t)n, rows), *mids = mem_rows ? nn_ints(g, (size_t)S * n, mem_rows) : NULL;
  int st = graph_status(g);
  for (int i = 0; i < d->nstate && !st; i++) st = gather_in_place(d, d->state[i], ids, n, d->dim[i]);
  for (int m = 0; m < NMT_NET_MAX_MEM && d->mem[m] && !st; m++) {
    nn_tensor *t = d->mem[m];
    if (t->rows != S * R) continue; /* the same tensor as an earlier memory: done */
    st = gather_in_place(d, t->v, mids, S * n, t->cols);
    t->rows = S * n;
  }
  for (int r = 0; r < n; r++) d->len_host[r] = d->len_host[rows[r]];
  return st ? st : upload_lengths(d, n, S);
}

int nmt_dec_keep(nmt_dec *d, const int *keep, int nb) {
  int K = d->K, n = nb * K;
  int *rows = malloc(sizeof *rows * (size_t)(n ? n : 1));
  if (!rows) return nmt_fail(NMT_EIO, "out of memory");
  for (int i = 0; i < n; i++) rows[i] = keep[i / K] * K + i % K;
  int st = NMT_OK;
  for (int m = 0; m < d->nmodel && !st; m++) st = model_keep(&d->model[m], rows, n, d->R, d->S);
  free(rows);
  if (st) return st;
  d->B = nb, d->R = n;
  return NMT_OK;
}

int nmt_dec_restrict(nmt_dec *d, const int *ids, int n) {
  for (int m = 0; m < d->nmodel; m++) {
    nmt_dec_model *x = &d->model[m];
    if (!x->be->host) return nmt_fail(NMT_EUSAGE, "a lexical shortlist runs on the CPU (--device cpu)");
    nn_tensor *W = nmt_net_param(&x->enc, x->p, x->out_w), *b = nmt_net_param(&x->enc, x->p, x->out_b);
    if (x->enc.failed) return graph_status(&x->enc);
    int st = nmt_out_cols_gather(&x->cols, W, b, x->out_t, ids, n);
    if (st) return st;
  }
  d->cols = ids, d->ncols = n;
  return NMT_OK;
}

void nmt_dec_free(nmt_dec *d) {
  for (int m = 0; m < d->cap_model; m++) {
    nmt_dec_model *x = &d->model[m];
    nn_graph_free(&x->enc);
    nn_graph_free(&x->step);
    if (x->be) x->be->free(x->states), x->be->free(x->tmp), x->be->free(x->logp_dev);
    free(x->logp), free(x->att), free(x->align), free(x->logp_cols);
    nmt_out_cols_free(&x->cols);
  }
  free(d->model), free(d->sum_logp), free(d->sum_align), free(d->sum_cols);
  memset(d, 0, sizeof *d);
}

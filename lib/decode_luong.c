/* Step-wise Luong inference; see decode_luong.h. */
#include "decode_luong.h"
#include "err.h"
#include "nn_kernels.h"
#include "nn_ops.h"
#include "nn_parallel.h"
#include "nn_vmath.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static nn_tensor *param(nn_graph *g, nn_params *p, int index) {
  return index < 0 ? NULL : nn_param(g, p, index);
}

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

/* The encoder; the decoder's initial state goes into all K rows of each sentence. */
static nn_tensor *encode(nmt_luong_dec *d, const int *src, const int *src_len, const float *src_mask) {
  nn_graph *g = &d->enc;
  const nn_luong *m = d->net;
  int B = d->B, H = m->cfg.hidden;
  nn_tensor *h0[NN_LUONG_MAX_LAYERS], *c0[NN_LUONG_MAX_LAYERS];
  nn_tensor *h[NN_LUONG_MAX_LAYERS], *c[NN_LUONG_MAX_LAYERS];
  nn_tensor *Hs = nn_luong_encode(g, m, d->p, src, src_len, d->S, B, src_mask, h0, c0);
  if (Hs) nn_luong_init_state(g, m, h0, c0, h, c, B);
  if (g->failed) return NULL;
  for (int l = 0; l < m->cfg.dec_layers; l++)
    for (int b = 0; b < B; b++)
      for (int k = 0; k < d->K; k++) {
        size_t to = ((size_t)l * d->R + (size_t)b * d->K + k) * H, from = (size_t)b * H;
        memcpy(d->h + to, h[l]->v + from, H * sizeof(float));
        memcpy(d->c + to, c[l]->v + from, H * sizeof(float));
      }
  return Hs;
}

int nmt_luong_dec_start(nmt_luong_dec *d, const nn_luong *net, nn_params *p, const int *src,
                        const int *src_len, int B, int S, int K) {
  d->net = net, d->p = p, d->B = B, d->K = K, d->R = B * K, d->S = S;
  int H = net->cfg.hidden, R = d->R, L = net->cfg.dec_layers;
  size_t cap_c = d->cap_state;
  if (grow(&d->h, &d->cap_state, (size_t)L * R * H) || grow(&d->c, &cap_c, (size_t)L * R * H))
    return NMT_EIO;
  free(d->feed);
  if (!(d->feed = calloc((size_t)R * H, sizeof(float)))) return nmt_fail(NMT_EIO, "out of memory");
  nn_graph *g = &d->enc;
  nn_graph_reset(g, false, 0);
  float *src_mask = nn_floats(g, (size_t)S * B, NULL);
  d->mask = nn_floats(g, (size_t)R * S, NULL);
  d->len = nn_ints(g, (size_t)R, NULL);
  if (g->failed) return graph_status(g);
  for (int r = 0; r < R; r++) {
    d->len[r] = src_len[r / K];
    for (int s = 0; s < S; s++) d->mask[r * S + s] = s < d->len[r];
  }
  for (int s = 0; s < S; s++)
    for (int b = 0; b < B; b++) src_mask[s * B + b] = s < src_len[b];
  nn_tensor *Hs = encode(d, src, src_len, src_mask);
  d->Hs = d->keys = NULL;
  if (!Hs || net->cfg.no_attention) return graph_status(g);
  nn_attn_w aw = nn_luong_attn_w(g, net, p);
  nn_tensor *keys = nn_attn_keys(g, &net->cfg.attn, &aw, Hs);
  d->Hs = keys ? repeat_rows(g, Hs, S, B, K) : NULL;
  d->keys = d->Hs ? (keys == Hs ? d->Hs : repeat_rows(g, keys, S, B, K)) : NULL;
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
 * shortlist only those columns of out.W are read (batch 1 is memory-bound). */
static float *output_logits(nn_graph *g, const nmt_luong_dec *d, const nn_tensor *x, int W) {
  const nn_luong *m = d->net;
  nn_tensor *Wo = param(g, d->p, m->out_w), *bo = param(g, d->p, m->out_b);
  float *y = nn_floats(g, (size_t)x->rows * W, NULL);
  if (!y || !Wo) return NULL;
  for (int r = 0; r < x->rows; r++)
    if (bo) memcpy(y + (size_t)r * W, bo->v, sizeof(float) * W);
    else memset(y + (size_t)r * W, 0, sizeof(float) * W);
  nn_gemm(false, false, x->rows, W, x->cols, 1, x->v, x->cols, Wo->v, Wo->cols, 1, y, W);
  return y;
}

/* The rows of ht whose scores the search reads (d->live), or NULL for all. */
static int *live_rows(nn_graph *g, const nmt_luong_dec *d, int *n) {
  *n = d->R;
  if (!d->live) return NULL;
  int *rows = nn_ints(g, (size_t)d->R, NULL), k = 0;
  for (int r = 0; rows && r < d->R; r++)
    if (d->live[r]) rows[k++] = r;
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

/* The LSTM, the attentional vector and the output layer run on the live rows
 * only (dead beam rows are ~20% of them; their state is never read again); the
 * attention scores on all R rows (the memory is per row; a dead row gets a
 * zero query). */
int nmt_luong_dec_step(nmt_luong_dec *d, const int *prev) {
  nn_graph *g = &d->step;
  const nn_luong *m = d->net;
  const nn_luong_cfg *cf = &m->cfg;
  int R = d->R, H = cf->hidden, V = cf->tgt_vocab;
  int W = d->shortlist <= 0 ? V : d->shortlist < 2 * d->K ? 2 * d->K : d->shortlist;
  W = W < V ? W : V;
  nn_graph_reset(g, false, 0);
  int n, *rows = live_rows(g, d, &n);
  if (!n) rows = NULL, n = R; /* no search row alive: all */
  const int *lrows = n < R ? rows : NULL; /* the rows the step runs on; NULL: all */
  int *ids = nn_ints(g, (size_t)n, NULL);
  for (int i = 0; ids && i < n; i++) ids[i] = prev[lrows ? lrows[i] : i];
  nn_tensor *x = nn_embed(g, param(g, d->p, m->tgt_emb), ids, n);
  nn_tensor *gx0 = nn_linear(g, x, param(g, d->p, m->dec_wx[0]), param(g, d->p, m->dec_b[0]));
  nn_tensor *feed = input_rows(g, d->feed, lrows, n, H);
  nn_tensor *hn[NN_LUONG_MAX_LAYERS], *cn[NN_LUONG_MAX_LAYERS];
  for (int l = 0; l < cf->dec_layers; l++) {
    hn[l] = input_rows(g, d->h + (size_t)l * R * H, lrows, n, H);
    cn[l] = input_rows(g, d->c + (size_t)l * R * H, lrows, n, H);
  }
  nn_tensor *top = g->failed ? NULL : nn_luong_decode_step(g, m, d->p, gx0, feed, NULL, hn, cn);
  if (top && lrows && !cf->no_attention) {
    nn_tensor *all = nn_new(g, R, H);
    if (all) memset(all->v, 0, sizeof(float) * (size_t)R * H), store_rows(all->v, top, lrows);
    top = all;
  }
  nn_attn_w aw = nn_luong_attn_w(g, m, d->p);
  nn_tensor *ht = !top || cf->no_attention ? top
                  : nn_attn_step_rows(g, &cf->attn, &aw, top, d->keys, d->Hs, d->mask, d->len,
                                      lrows, n, NULL); /* (n,H) */
  float *logits = ht ? output_logits(g, d, ht, W) : NULL;
  if (g->failed || !logits) return graph_status(g);
  for (int l = 0; l < cf->dec_layers; l++) {
    store_rows(d->h + (size_t)l * R * H, hn[l], lrows);
    store_rows(d->c + (size_t)l * R * H, cn[l], lrows);
  }
  store_rows(d->feed, ht, lrows);
  if (grow(&d->logp, &d->cap_logp, (size_t)R * V)) return NMT_EIO;
  log_softmax(d->logp, logits, lrows, n, W, V);
  return NMT_OK;
}

/* Gather rows of a (R, H) block in place through a scratch copy. */
static void gather(float *a, float *tmp, const int *from, int R, int H) {
  memcpy(tmp, a, sizeof(float) * (size_t)R * H);
  for (int r = 0; r < R; r++) memcpy(a + (size_t)r * H, tmp + (size_t)from[r] * H, sizeof(float) * H);
}

int nmt_luong_dec_reorder(nmt_luong_dec *d, const int *from) {
  int R = d->R, H = d->net->cfg.hidden, r = 0;
  while (r < R && from[r] == r) r++;
  if (r == R) return NMT_OK; /* greedy, or a beam that kept its order */
  if (grow(&d->tmp, &d->cap_tmp, (size_t)R * H)) return NMT_EIO;
  for (int l = 0; l < d->net->cfg.dec_layers; l++) {
    gather(d->h + (size_t)l * R * H, d->tmp, from, R, H);
    gather(d->c + (size_t)l * R * H, d->tmp, from, R, H);
  }
  gather(d->feed, d->tmp, from, R, H);
  return NMT_OK;
}

/* Row r' of a (R', F) block takes row rows[r'] of the (R, F) one, in place:
 * rows ascend, so no row is overwritten before it is read. */
static void keep_rows(float *a, const int *rows, int n, size_t F) {
  for (int r = 0; r < n; r++) memmove(a + (size_t)r * F, a + (size_t)rows[r] * F, F * sizeof *a);
}

int nmt_luong_dec_keep(nmt_luong_dec *d, const int *keep, int nb) {
  int K = d->K, R = d->R, S = d->S, H = d->net->cfg.hidden, n = nb * K;
  int *rows = malloc(sizeof *rows * (size_t)(n ? n : 1));
  if (!rows) return nmt_fail(NMT_EIO, "out of memory");
  for (int i = 0; i < n; i++) rows[i] = keep[i / K] * K + i % K;
  for (int l = 0; l < d->net->cfg.dec_layers; l++) {
    keep_rows(d->h + (size_t)l * R * H, rows, n, (size_t)H);
    memmove(d->h + (size_t)l * n * H, d->h + (size_t)l * R * H, sizeof(float) * (size_t)n * H);
    keep_rows(d->c + (size_t)l * R * H, rows, n, (size_t)H);
    memmove(d->c + (size_t)l * n * H, d->c + (size_t)l * R * H, sizeof(float) * (size_t)n * H);
  }
  keep_rows(d->feed, rows, n, (size_t)H);
  keep_rows(d->mask, rows, n, (size_t)S);
  for (int r = 0; r < n; r++) d->len[r] = d->len[rows[r]];
  /* Memory rows are time-major, s*R + r: step s of the kept rows. */
  for (int m = 0; m < 2 && d->Hs; m++) {
    nn_tensor *t = m ? d->keys : d->Hs;
    if (m && t == d->Hs) break;
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

void nmt_luong_dec_free(nmt_luong_dec *d) {
  nn_graph_free(&d->enc);
  nn_graph_free(&d->step);
  free(d->h), free(d->c), free(d->feed), free(d->logp), free(d->tmp);
  memset(d, 0, sizeof *d);
}

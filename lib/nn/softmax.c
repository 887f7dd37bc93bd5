/* Masked row softmax, and the fused log-softmax + label-smoothed NLL. */
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/parallel.h"
#include "nn/vmath.h"
#include <math.h>

/* -O2 vectorises only loops of a known multiple of the vector width. */
#pragma GCC optimize("vect-cost-model=dynamic")

void nn_softmax_fwd(float *y, const float *x, const float *mask, int R, int C) {
  for (int r = 0; r < R; r++) {
    const float *xr = x + (size_t)r * C, *mr = mask ? mask + (size_t)r * C : NULL;
    float *yr = y + (size_t)r * C, mx = -INFINITY;
    for (int c = 0; c < C; c++)
      if ((!mr || mr[c]) && xr[c] > mx) mx = xr[c];
    double s = 0;
    for (int c = 0; c < C; c++) {
      yr[c] = (!mr || mr[c]) ? expf(xr[c] - mx) : 0.0f;
      s += yr[c];
    }
    float inv = s > 0 ? (float)(1.0 / s) : 0.0f;
    for (int c = 0; c < C; c++) yr[c] *= inv;
  }
}

/* dx = y ⊙ (dy - Σ y·dy); masked entries have y = 0, so they get nothing. */
void nn_softmax_bwd(float *dx, const float *y, const float *dy, int R, int C) {
  for (int r = 0; r < R; r++) {
    const float *yr = y + (size_t)r * C, *dyr = dy + (size_t)r * C;
    double dot = 0;
    for (int c = 0; c < C; c++) dot += (double)yr[c] * dyr[c];
    for (int c = 0; c < C; c++) dx[(size_t)r * C + c] += yr[c] * (dyr[c] - (float)dot);
  }
}

/* The cross-entropy's rows run in parts (nn_parallel): V exps per row. */
typedef struct {
  float *prob, *dlogits;
  const float *logits;
  const int *targets;
  int R, V, pad;
  float ls, dloss;
  double loss[8];
  long n[8];
} xent_job;

static void xent_fwd_part(void *ctx, int part, int parts) {
  xent_job *j = ctx;
  int V = j->V, r0 = (int)((long)j->R * part / parts), r1 = (int)((long)j->R * (part + 1) / parts);
  double loss = 0;
  long n = 0;
  for (int r = r0; r < r1; r++) {
    if (j->targets[r] == j->pad) continue;
    const float *x = j->logits + (size_t)r * V;
    float *p = j->prob + (size_t)r * V, mx = nn_vmax(x, (size_t)V);
    double s = nn_vexp_sum(p, x, mx, (size_t)V), sum_x = 0;
    for (int v = 0; j->ls > 0 && v < V; v++) sum_x += x[v];
    double lse = mx + log(s);
    float inv = (float)(1 / s);
    for (int v = 0; v < V; v++) p[v] *= inv;
    /* -log p_y = lse - x_y;  mean_v(-log p_v) = lse - mean(x). */
    loss += (1 - j->ls) * (lse - x[j->targets[r]]) + j->ls * (lse - sum_x / V);
    n++;
  }
  j->loss[part] = loss;
  j->n[part] = n;
}

double nn_xent_fwd(float *prob, const float *logits, const int *targets, int R, int V, int pad,
                   float ls, long *ntokens) {
  xent_job j = {.prob = prob, .logits = logits, .targets = targets, .R = R, .V = V, .pad = pad,
               .ls = ls};
  nn_parallel((size_t)R * V, xent_fwd_part, &j);
  double loss = 0;
  *ntokens = 0;
  for (int i = 0; i < 8; i++) loss += j.loss[i], *ntokens += j.n[i]; /* parts not run are 0 */
  return loss;
}

static void xent_bwd_part(void *ctx, int part, int parts) {
  xent_job *j = ctx;
  int V = j->V, r0 = (int)((long)j->R * part / parts), r1 = (int)((long)j->R * (part + 1) / parts);
  for (int r = r0; r < r1; r++) {
    if (j->targets[r] == j->pad) continue;
    const float *p = j->prob + (size_t)r * V;
    float *d = j->dlogits + (size_t)r * V, off = j->ls / V, k = j->dloss;
    for (int v = 0; v < V; v++) d[v] += k * (p[v] - off);
    d[j->targets[r]] -= k * (1 - j->ls);
  }
}

void nn_xent_bwd(float *dlogits, const float *prob, const int *targets, int R, int V, int pad,
                 float ls, float dloss) {
  xent_job j = {.prob = (float *)prob, .dlogits = dlogits, .targets = targets, .R = R, .V = V,
                .pad = pad, .ls = ls, .dloss = dloss};
  nn_parallel((size_t)R * V, xent_bwd_part, &j);
}

static void softmax_bw(const nn_entry *e) {
  nn_tensor *x = e->in[0], *y = e->out[0];
  if (x->g) nn_softmax_bwd(x->g, y->v, y->g, y->rows, y->cols);
}
static const nn_opdef softmax_op = {"softmax", softmax_bw};

nn_tensor *nn_softmax(nn_graph *g, nn_tensor *x, const float *mask) {
  if (g->failed) return NULL;
  nn_tensor *y = nn_new(g, x->rows, x->cols);
  if (!y) return NULL;
  nn_softmax_fwd(y->v, x->v, mask, x->rows, x->cols);
  nn_entry *e = nn_record(g, &softmax_op);
  if (e) *e = (nn_entry){.op = &softmax_op, .in = {x}, .out = {y}};
  return y;
}

static void xent_bw(const nn_entry *e) {
  nn_tensor *x = e->in[0];
  if (x->g)
    nn_xent_bwd(x->g, e->save[0], e->ids, x->rows, x->cols, e->n[0], e->f[0], e->out[0]->g[0]);
}
static const nn_opdef xent_op = {"xent", xent_bw};

nn_tensor *nn_xent(nn_graph *g, nn_tensor *logits, const int *targets, int pad, float ls,
                   long *ntokens) {
  if (g->failed) return NULL;
  nn_tensor *loss = nn_new(g, 1, 1);
  float *prob = nn_floats(g, (size_t)logits->rows * logits->cols, NULL);
  if (g->failed) return NULL;
  for (int r = 0; r < logits->rows; r++)
    if (!nn_require(g, targets[r] == pad || (targets[r] >= 0 && targets[r] < logits->cols),
                    "xent: target %d outside vocabulary of %d", targets[r], logits->cols))
      return NULL;
  loss->v[0] = (float)nn_xent_fwd(prob, logits->v, targets, logits->rows, logits->cols, pad, ls, ntokens);
  nn_entry *e = nn_record(g, &xent_op);
  if (e)
    *e = (nn_entry){.op = &xent_op, .in = {logits}, .out = {loss}, .save = {prob}, .ids = targets,
                    .n = {pad}, .f = {ls}};
  return loss;
}

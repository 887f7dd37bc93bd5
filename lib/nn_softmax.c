/* Masked row softmax, and the fused log-softmax + label-smoothed NLL. */
#include "nn_kernels.h"
#include "nn_ops.h"
#include <math.h>

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

double nn_xent_fwd(float *prob, const float *logits, const int *targets, int R, int V, int pad,
                   float ls, long *ntokens) {
  double loss = 0;
  long n = 0;
  for (int r = 0; r < R; r++) {
    if (targets[r] == pad) continue;
    const float *x = logits + (size_t)r * V;
    float *p = prob + (size_t)r * V, mx = x[0];
    for (int v = 1; v < V; v++) mx = x[v] > mx ? x[v] : mx;
    double s = 0, sum_x = 0;
    for (int v = 0; v < V; v++) {
      p[v] = expf(x[v] - mx);
      s += p[v];
      sum_x += x[v];
    }
    double lse = mx + log(s);
    for (int v = 0; v < V; v++) p[v] = (float)(p[v] / s);
    /* -log p_y = lse - x_y;  mean_v(-log p_v) = lse - mean(x). */
    loss += (1 - ls) * (lse - x[targets[r]]) + ls * (lse - sum_x / V);
    n++;
  }
  *ntokens = n;
  return loss;
}

void nn_xent_bwd(float *dlogits, const float *prob, const int *targets, int R, int V, int pad,
                 float ls, float dloss) {
  for (int r = 0; r < R; r++) {
    if (targets[r] == pad) continue;
    const float *p = prob + (size_t)r * V;
    float *d = dlogits + (size_t)r * V;
    for (int v = 0; v < V; v++) d[v] += dloss * (p[v] - ls / V);
    d[targets[r]] -= dloss * (1 - ls);
  }
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

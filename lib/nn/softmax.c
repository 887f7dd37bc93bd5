/* Masked row softmax, and the decoder's log-softmax rows (the cross-entropy: nn/xent.c). */
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/parallel.h"
#include "nn/vmath.h"
#include <math.h>
#include "nn/vectorise_any_length.h"

void nn_softmax_fwd(float *y, const float *x, const float *mask, int R, int C) {
  for (int r = 0; r < R; r++) {
    const float *xr = x + (size_t)r * C, *mr = mask ? mask + (size_t)r * C : NULL;
    float *yr = y + (size_t)r * C, mx = mr || !C ? -INFINITY : nn_vmax(xr, (size_t)C);
    for (int c = 0; mr && c < C; c++)
      if (mr[c] && xr[c] > mx) mx = xr[c];
    nn_vexp_sum(yr, xr, mx, (size_t)C); /* masked entries too (exp clamps), then zeroed */
    double s = 0;
    for (int c = 0; c < C; c++) {
      if (mr && !mr[c]) yr[c] = 0.0f;
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

static void softmax_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *x = e->in[0], *y = e->out[0];
  if (x->g) be->softmax_bwd(x->g, y->v, y->g, y->rows, y->cols);
}
static const nn_opdef softmax_op = {"softmax", softmax_bw};

nn_tensor *nn_softmax(nn_graph *g, nn_tensor *x, const float *mask) {
  if (g->failed) return NULL;
  nn_tensor *y = nn_new(g, x->rows, x->cols);
  if (!y) return NULL;
  g->be->softmax_fwd(y->v, x->v, mask, x->rows, x->cols);
  nn_entry *e = nn_record(g, &softmax_op);
  if (e) *e = (nn_entry){.op = &softmax_op, .in = {x}, .out = {y}};
  return y;
}

/* The decoder's rows split over the threads (nn_parallel); exp values pass
 * through out. */
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

void nn_log_softmax_rows(float *out, const int *rows, const float *x, int n, int W, int V) {
  log_softmax_job j = {out, x, rows, n, W, V};
  nn_parallel((size_t)n * W, log_softmax_part, &j);
}

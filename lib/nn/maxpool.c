/* Max-pooling over time: kernels and tape op. */
#include "nn/maxpool.h"
#include <float.h>

void nn_maxpool_time_fwd(float *y, int *arg, const float *X, const float *mask, int S, int B,
                         int F) {
  for (int i = 0; i < B * F; i++) y[i] = -FLT_MAX, arg[i] = -1;
  for (int s = 0; s < S; s++)
    for (int b = 0; b < B; b++) {
      int row = s * B + b;
      if (mask && mask[row] == 0) continue;
      const float *x = X + (size_t)row * F;
      float *yb = y + (size_t)b * F;
      int *ab = arg + (size_t)b * F;
      for (int k = 0; k < F; k++)
        if (x[k] > yb[k]) yb[k] = x[k], ab[k] = row;
    }
  for (int i = 0; i < B * F; i++)
    if (arg[i] < 0) y[i] = 0;
}

void nn_maxpool_time_bwd(float *dX, const int *arg, const float *dy, int B, int F) {
  for (int i = 0; i < B * F; i++)
    if (arg[i] >= 0) dX[(size_t)arg[i] * F + i % F] += dy[i];
}

/* in: X; out: y; ids: arg. */
static void maxpool_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *X = e->in[0], *y = e->out[0];
  if (X->g) be->maxpool_time_bwd(X->g, e->ids, y->g, y->rows, y->cols);
}
static const nn_opdef maxpool_op = {"max_over_time", maxpool_bw};

nn_tensor *nn_max_over_time(nn_graph *g, nn_tensor *X, const float *mask, int S) {
  if (g->failed || !nn_require(g, S > 0 && X->rows % S == 0, "max_over_time: %d rows for %d steps",
                               X->rows, S))
    return NULL;
  int B = X->rows / S, F = X->cols;
  nn_tensor *y = nn_new(g, B, F);
  int *arg = nn_ints(g, (size_t)B * F, NULL);
  if (g->failed) return NULL;
  g->be->maxpool_time_fwd(y->v, arg, X->v, mask, S, B, F);
  nn_entry *e = nn_record(g, &maxpool_op);
  if (e) *e = (nn_entry){.op = &maxpool_op, .in = {X}, .out = {y}, .ids = arg};
  return y;
}

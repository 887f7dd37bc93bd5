/* Layer norm (Ba et al. 2016) over the features of each row. */
#include "nn/kernels.h"
#include "nn/ops.h"
#include <math.h>

void nn_layernorm_fwd(float *y, float *mean, float *rstd, const float *x, const float *gain,
                      const float *bias, int R, int C, float eps) {
  for (int r = 0; r < R; r++) {
    const float *xr = x + (size_t)r * C;
    float *yr = y + (size_t)r * C;
    double s = 0, s2 = 0;
    for (int c = 0; c < C; c++) s += xr[c];
    float m = (float)(s / C);
    for (int c = 0; c < C; c++) s2 += (double)(xr[c] - m) * (xr[c] - m);
    float rs = 1.0f / sqrtf((float)(s2 / C) + eps);
    for (int c = 0; c < C; c++) yr[c] = (xr[c] - m) * rs * gain[c] + bias[c];
    mean[r] = m;
    rstd[r] = rs;
  }
}

/* With x̂ = (x-mean)·rstd and d = dy·gain: dx = rstd·(d - mean(d) - x̂·mean(d·x̂)). */
void nn_layernorm_bwd(float *dx, float *dgain, float *dbias, const float *dy, const float *x,
                      const float *mean, const float *rstd, const float *gain, int R, int C) {
  for (int r = 0; r < R; r++) {
    const float *xr = x + (size_t)r * C, *dyr = dy + (size_t)r * C;
    float m = mean[r], rs = rstd[r];
    double sd = 0, sdx = 0;
    for (int c = 0; c < C; c++) {
      float xh = (xr[c] - m) * rs, d = dyr[c] * gain[c];
      sd += d;
      sdx += d * xh;
      if (dgain) dgain[c] += dyr[c] * xh;
      if (dbias) dbias[c] += dyr[c];
    }
    if (!dx) continue;
    float md = (float)(sd / C), mdx = (float)(sdx / C);
    for (int c = 0; c < C; c++) {
      float xh = (xr[c] - m) * rs;
      dx[(size_t)r * C + c] += rs * (dyr[c] * gain[c] - md - xh * mdx);
    }
  }
}

static void layernorm_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *x = e->in[0], *gain = e->in[1], *bias = e->in[2], *y = e->out[0];
  be->layernorm_bwd(x->g, gain->g, bias->g, y->g, x->v, e->save[0], e->save[1], gain->v, x->rows,
                   x->cols);
}
static const nn_opdef layernorm_op = {"layernorm", layernorm_bw};

nn_tensor *nn_layernorm(nn_graph *g, nn_tensor *x, nn_tensor *gain, nn_tensor *bias, float eps) {
  if (g->failed) return NULL;
  if (!nn_require(g, gain->rows == 1 && bias->rows == 1 && gain->cols == x->cols && bias->cols == x->cols,
                  "layernorm: gain/bias must be (1,%d)", x->cols))
    return NULL;
  nn_tensor *y = nn_new(g, x->rows, x->cols);
  float *mean = nn_floats(g, (size_t)x->rows, NULL), *rstd = nn_floats(g, (size_t)x->rows, NULL);
  if (g->failed) return NULL;
  g->be->layernorm_fwd(y->v, mean, rstd, x->v, gain->v, bias->v, x->rows, x->cols, eps);
  nn_entry *e = nn_record(g, &layernorm_op);
  if (e) *e = (nn_entry){.op = &layernorm_op, .in = {x, gain, bias}, .out = {y}, .save = {mean, rstd}};
  return y;
}

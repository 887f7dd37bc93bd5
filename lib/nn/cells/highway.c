/* The highway of SRU / SR-NMT: kernels with hand-written backward and the tape
 * op (nn/cells/highway.h). */
#include "nn/cells/highway.h"
#include "nn/vmath.h"
#include "nn/vectorise_any_length.h"

void nn_highway_fwd(float *y, float *sz, const float *Z, int ldz, const float *a, const float *x,
                    int R, int H) {
  for (int r = 0; r < R; r++) {
    float *s = sz + (size_t)r * H, *yr = y + (size_t)r * H;
    const float *ar = a + (size_t)r * H, *xr = x + (size_t)r * H;
    nn_vsigmoid(s, Z + (size_t)r * ldz, (size_t)H);
    for (int k = 0; k < H; k++) yr[k] = ar[k] + s[k] * (xr[k] - ar[k]);
  }
}

void nn_highway_bwd(float *dZ, int ldz, float *da, float *dx, const float *dy, const float *sz,
                    const float *a, const float *x, int R, int H) {
  for (int r = 0; r < R; r++) {
    size_t o = (size_t)r * H;
    const float *s = sz + o, *d = dy + o, *ar = a + o, *xr = x + o;
    float *dz = dZ + (size_t)r * ldz;
    for (int k = 0; dZ && k < H; k++) dz[k] += s[k] * (1 - s[k]) * (xr[k] - ar[k]) * d[k];
    for (int k = 0; da && k < H; k++) da[o + k] += (1 - s[k]) * d[k];
    for (int k = 0; dx && k < H; k++) dx[o + k] += s[k] * d[k];
  }
}

/* in: Z, a, x; out: y; save: σ(z); n[0]: z0. */
static void highway_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *Z = e->in[0], *a = e->in[1], *x = e->in[2], *y = e->out[0];
  be->highway_bwd(Z->g ? Z->g + e->n[0] : NULL, Z->cols, a->g, x->g, y->g, e->save[0], a->v, x->v,
                 y->rows, y->cols);
}
static const nn_opdef highway_op = {"highway", highway_bw};

nn_tensor *nn_highway(nn_graph *g, nn_tensor *Z, int z0, nn_tensor *a, nn_tensor *x) {
  if (g->failed || !nn_require(g, a->rows == Z->rows && x->rows == Z->rows && x->cols == a->cols &&
                                      z0 >= 0 && z0 + a->cols <= Z->cols,
                               "highway: gates (%d,%d) from column %d, a (%d,%d), x (%d,%d)",
                               Z->rows, Z->cols, z0, a->rows, a->cols, x->rows, x->cols))
    return NULL;
  int R = a->rows, H = a->cols;
  nn_tensor *y = nn_new(g, R, H);
  float *sz = nn_floats(g, (size_t)R * H, NULL);
  if (g->failed) return NULL;
  g->be->highway_fwd(y->v, sz, Z->v + z0, Z->cols, a->v, x->v, R, H);
  nn_entry *e = nn_record(g, &highway_op);
  if (e) *e = (nn_entry){.op = &highway_op, .in = {Z, a, x}, .out = {y}, .save = {sz}, .n = {z0}};
  return y;
}

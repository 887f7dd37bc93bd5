/* The weakly-recurrent scan and the highway of SRU / SR-NMT: kernels with
 * hand-written backward and their tape ops (nn/cells/sru.h). */
#include "nn/cells/sru.h"
#include "nn/vmath.h"
#include <string.h>

/* -O2 vectorises only loops of a known multiple of the vector width. */
#pragma GCC optimize("vect-cost-model=dynamic")

/* n units of one row at one step: prev NULL is the zero state. */
static void scan_units(float *c, float *sg, const float *x, const float *gate, const float *prev,
                       bool real, int n) {
  if (!real) { /* padding: carried */
    if (prev) memcpy(c, prev, sizeof(float) * (size_t)n);
    else memset(c, 0, sizeof(float) * (size_t)n);
    memset(sg, 0, sizeof(float) * (size_t)n);
    return;
  }
  nn_vsigmoid(sg, gate, (size_t)n);
  if (prev)
    for (int k = 0; k < n; k++) c[k] = prev[k] + sg[k] * (x[k] - prev[k]);
  else
    for (int k = 0; k < n; k++) c[k] = sg[k] * x[k];
}

/* Row b's state before step t in direction dir (+1 forward, -1 backward). */
static const float *prev_state(const float *c, const float *c0, int t, int dir, int T, int B,
                               int b, int H) {
  int tp = t - dir;
  if (tp >= 0 && tp < T) return c + ((size_t)tp * B + b) * H;
  return c0 ? c0 + (size_t)b * H : NULL;
}

void nn_wscan_fwd(float *c, float *sg, const float *G, int ldg, const float *c0,
                  const float *mask, int T, int B, int H, int Hf) {
  for (int i = 0; i < T; i++)
    for (int b = 0; b < B; b++)
      for (int dir = 1; dir >= -1; dir -= 2) { /* units [0, Hf) forward, [Hf, H) backward */
        int t = dir > 0 ? i : T - 1 - i, k0 = dir > 0 ? 0 : Hf, n = dir > 0 ? Hf : H - Hf;
        size_t r = (size_t)t * B + b;
        if (!n) continue;
        const float *prev = prev_state(c, c0, t, dir, T, B, b, H);
        scan_units(c + r * H + k0, sg + r * H + k0, G + r * ldg + k0, G + r * ldg + H + k0,
                   prev ? prev + k0 : NULL, !mask || mask[r] != 0, n);
      }
}

/* Backward of scan_units: carry holds dL/dc_t from later steps; adds this
 * step's dc and leaves dL/dc_{t-1}. */
static void unscan_units(float *dx, float *dgate, float *carry, const float *dc, const float *sg,
                         const float *x, const float *prev, bool real, int n) {
  for (int k = 0; k < n; k++) carry[k] += dc[k];
  if (!real) return;
  for (int k = 0; k < n; k++) {
    float d = carry[k], p = prev ? prev[k] : 0.0f;
    dx[k] += sg[k] * d;
    dgate[k] += sg[k] * (1 - sg[k]) * (x[k] - p) * d;
    carry[k] = (1 - sg[k]) * d;
  }
}

void nn_wscan_bwd(float *dG, float *dc0, float *work, const float *dc, const float *c,
                  const float *sg, const float *G, int ldg, const float *c0, const float *mask,
                  int T, int B, int H, int Hf) {
  memset(work, 0, sizeof(float) * (size_t)B * H);
  for (int i = 0; i < T; i++)
    for (int b = 0; b < B; b++)
      for (int dir = 1; dir >= -1; dir -= 2) { /* each direction in reverse */
        int t = dir > 0 ? T - 1 - i : i, k0 = dir > 0 ? 0 : Hf, n = dir > 0 ? Hf : H - Hf;
        size_t r = (size_t)t * B + b;
        if (!n) continue;
        const float *prev = prev_state(c, c0, t, dir, T, B, b, H);
        unscan_units(dG + r * ldg + k0, dG + r * ldg + H + k0, work + (size_t)b * H + k0,
                     dc + r * H + k0, sg + r * H + k0, G + r * ldg + k0, prev ? prev + k0 : NULL,
                     !mask || mask[r] != 0, n);
      }
  for (size_t k = 0; dc0 && k < (size_t)B * H; k++) dc0[k] += work[k];
}

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

/* in: G, c0; out: c; save: σ(g), backward scratch; n: T, H, Hf. */
static void wscan_bw(const nn_entry *e) {
  nn_tensor *G = e->in[0], *c0 = e->in[1], *c = e->out[0];
  int T = e->n[0], H = e->n[1];
  nn_wscan_bwd(G->g, c0 ? c0->g : NULL, e->save[1], c->g, c->v, e->save[0], G->v, G->cols,
               c0 ? c0->v : NULL, e->mask, T, c->rows / T, H, e->n[2]);
}
static const nn_opdef wscan_op = {"wscan", wscan_bw};

nn_tensor *nn_wscan(nn_graph *g, nn_tensor *G, nn_tensor *c0, const float *mask, int T, int H,
                    int Hf) {
  if (g->failed || !nn_require(g, T > 0 && G->rows % T == 0 && G->cols >= 2 * H && Hf >= 0 &&
                                      Hf <= H, "wscan: G (%d,%d) for %d steps of %d units (%d forward)",
                               G->rows, G->cols, T, H, Hf))
    return NULL;
  int B = G->rows / T;
  if (c0 && !nn_require(g, c0->rows == B && c0->cols == H, "wscan: c0 (%d,%d), want (%d,%d)",
                        c0->rows, c0->cols, B, H))
    return NULL;
  nn_tensor *c = nn_new(g, G->rows, H);
  float *sg = nn_floats(g, (size_t)G->rows * H, NULL);
  float *work = g->train ? nn_floats(g, (size_t)B * H, NULL) : NULL;
  if (g->failed) return NULL;
  nn_wscan_fwd(c->v, sg, G->v, G->cols, c0 ? c0->v : NULL, mask, T, B, H, Hf);
  nn_entry *e = nn_record(g, &wscan_op);
  if (e)
    *e = (nn_entry){.op = &wscan_op, .in = {G, c0}, .out = {c}, .save = {sg, work}, .mask = mask,
                    .n = {T, H, Hf}};
  return c;
}

/* in: Z, a, x; out: y; save: σ(z); n[0]: z0. */
static void highway_bw(const nn_entry *e) {
  nn_tensor *Z = e->in[0], *a = e->in[1], *x = e->in[2], *y = e->out[0];
  nn_highway_bwd(Z->g ? Z->g + e->n[0] : NULL, Z->cols, a->g, x->g, y->g, e->save[0], a->v, x->v,
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
  nn_highway_fwd(y->v, sz, Z->v + z0, Z->cols, a->v, x->v, R, H);
  nn_entry *e = nn_record(g, &highway_op);
  if (e) *e = (nn_entry){.op = &highway_op, .in = {Z, a, x}, .out = {y}, .save = {sz}, .n = {z0}};
  return y;
}

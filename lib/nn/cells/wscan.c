/* The weakly-recurrent scan of SRU / SR-NMT: kernels with hand-written backward
 * and the tape op (nn/cells/wscan.h). */
#include "nn/cells/wscan.h"
#include "nn/vmath.h"
#include <string.h>
#include "nn/vectorise_any_length.h"

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

/* in: G, c0; out: c; save: σ(g), backward scratch; n: T, H, Hf. */
static void wscan_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *G = e->in[0], *c0 = e->in[1], *c = e->out[0];
  int T = e->n[0], H = e->n[1];
  be->wscan_bwd(G->g, c0 ? c0->g : NULL, e->save[1], c->g, c->v, e->save[0], G->v, G->cols,
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
  g->be->wscan_fwd(c->v, sg, G->v, G->cols, c0 ? c0->v : NULL, mask, T, B, H, Hf);
  nn_entry *e = nn_record(g, &wscan_op);
  if (e)
    *e = (nn_entry){.op = &wscan_op, .in = {G, c0}, .out = {c}, .save = {sg, work}, .mask = mask,
                    .n = {T, H, Hf}};
  return c;
}

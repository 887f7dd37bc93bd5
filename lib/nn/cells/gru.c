/* The fused GRU cell (forward and hand-written backward) and the layer loop. */
#include "nn/cells/gru.h"
#include "nn/kernels.h"
#include "nn/recur.h"
#include "nn/ops.h"
#include "nn/vmath.h"
#include <string.h>
#include "nn/vectorise_any_length.h"

void nn_gru_cell_fwd(float *h, float *act, const float *gx, const float *gh, const float *h_prev,
                     const float *mask, int B, int H) {
  for (int b = 0; b < B; b++) {
    const float *x = gx + (size_t)b * 3 * H, *r_h = gh + (size_t)b * 3 * H;
    const float *hp = h_prev + (size_t)b * H;
    float *a = act + (size_t)b * 3 * H, *hb = h + (size_t)b * H;
    if (mask && mask[b] == 0) {
      memcpy(hb, hp, (size_t)H * sizeof *hb);
      continue;
    }
    for (int k = 0; k < 2 * H; k++) a[k] = x[k] + r_h[k];
    nn_vsigmoid(a, a, (size_t)2 * H); /* r, z */
    const float *r = a, *z = a + H;
    float *n = a + 2 * H;
    for (int k = 0; k < H; k++) n[k] = x[2 * H + k] + r[k] * r_h[2 * H + k];
    nn_vtanh(n, n, (size_t)H);
    for (int k = 0; k < H; k++) hb[k] = z[k] * hp[k] + (1 - z[k]) * n[k];
  }
}

void nn_gru_cell_bwd(float *dgx, float *dgh, float *dh_prev, const float *dh, const float *act,
                     const float *gh, const float *h_prev, const float *mask, int B, int H) {
  for (int b = 0; b < B; b++) {
    const float *dhb = dh + (size_t)b * H, *hp = h_prev + (size_t)b * H;
    float *dhp = dh_prev ? dh_prev + (size_t)b * H : NULL;
    if (mask && mask[b] == 0) { /* h = h_prev */
      for (int k = 0; dhp && k < H; k++) dhp[k] += dhb[k];
      continue;
    }
    const float *a = act + (size_t)b * 3 * H, *r = a, *z = a + H, *n = a + 2 * H;
    const float *hn = gh + (size_t)b * 3 * H + 2 * H; /* the recurrent part of n */
    float *dx = dgx ? dgx + (size_t)b * 3 * H : NULL, *dr_h = dgh ? dgh + (size_t)b * 3 * H : NULL;
    for (int k = 0; k < H; k++) {
      float dn = dhb[k] * (1 - z[k]) * (1 - n[k] * n[k]); /* n's pre-activation */
      float dz = dhb[k] * (hp[k] - n[k]) * z[k] * (1 - z[k]);
      float dr = dn * hn[k] * r[k] * (1 - r[k]);
      if (dx) dx[k] += dr, dx[H + k] += dz, dx[2 * H + k] += dn;
      if (dr_h) dr_h[k] += dr, dr_h[H + k] += dz, dr_h[2 * H + k] += dn * r[k];
      if (dhp) dhp[k] += dhb[k] * z[k];
    }
  }
}

/* in: gx, gh, h_prev; out: h; save[0]: r, z, n. */
static void cell_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *gx = e->in[0], *gh = e->in[1], *hp = e->in[2], *h = e->out[0];
  be->gru_cell_bwd(gx->g, gh->g, hp->g, h->g, e->save[0], gh->v, hp->v, e->mask, h->rows, h->cols);
}
static const nn_opdef cell_op = {"gru_cell", cell_bw};

static bool shape_is(const nn_tensor *t, int rows, int cols) {
  return t && t->rows == rows && t->cols == cols;
}

void nn_gru_cell(nn_graph *g, nn_tensor *gx, nn_tensor *gh, nn_tensor *h_prev, const float *mask,
                 nn_tensor *h_out) {
  if (g->failed) return;
  int B = h_out->rows, H = h_out->cols;
  if (!nn_require(g, shape_is(gx, B, 3 * H) && shape_is(gh, B, 3 * H) && shape_is(h_prev, B, H),
                  "gru_cell: gates must be (%d,%d), h_prev (%d,%d)", B, 3 * H, B, H))
    return;
  float *act = nn_floats(g, (size_t)B * 3 * H, NULL);
  if (!act) return;
  g->be->gru_cell_fwd(h_out->v, act, gx->v, gh->v, h_prev->v, mask, B, H);
  nn_entry *e = nn_record(g, &cell_op);
  if (e)
    *e = (nn_entry){.op = &cell_op, .in = {gx, gh, h_prev}, .out = {h_out}, .save = {act},
                    .mask = mask};
}

nn_tensor *nn_gru_layer(nn_graph *g, const nn_gru_w *w, nn_tensor *X, const float *mask, int T,
                        nn_tensor *h0) {
  if (g->failed || !nn_require(g, T > 0 && X->rows % T == 0, "gru: %d rows for %d steps", X->rows, T))
    return NULL;
  int B = X->rows / T, H = w->Wh->rows;
  nn_tensor *G = nn_linear(g, X, w->Wx, w->b); /* (T*B,3H): the input side in one GEMM */
  nn_tensor *Hs = nn_new(g, T * B, H), *h = h0 ? h0 : nn_zeros(g, B, H);
  nn_recur rec; /* (T*B,3H): the recurrent side, kept apart for the reset gate */
  if (!G || !Hs || !h || !nn_recur_begin(g, &rec, w->Wh, NULL, T, B)) return NULL;
  for (int t = 0; t < T && !g->failed; t++) {
    nn_tensor *gh = nn_recur_step(g, &rec, t, h);
    nn_tensor *gx = nn_rows(g, G, t * B, B), *h_t = nn_rows(g, Hs, t * B, B);
    if (g->failed) break;
    nn_gru_cell(g, gx, gh, h, mask ? mask + (size_t)t * B : NULL, h_t);
    h = h_t;
  }
  return g->failed ? NULL : Hs;
}

/* The fused ATR cell (forward and hand-written backward) and the layer loop. */
#include "nn/cells/atr.h"
#include "nn/kernels.h"
#include "nn/recur.h"
#include "nn/ops.h"
#include "nn/vmath.h"
#include <string.h>
#include "nn/vectorise_any_length.h"

void nn_atr_cell_fwd(float *h, float *gates, const float *q, const float *p, const float *h_prev,
                     const float *mask, int B, int H) {
  for (int b = 0; b < B; b++) {
    size_t o = (size_t)b * H;
    const float *qb = q + o, *pb = p + o, *hp = h_prev + o;
    float *hb = h + o, *i = gates + 2 * o, *f = i + H;
    if (mask && mask[b] == 0) {
      memcpy(hb, hp, (size_t)H * sizeof *hb);
      continue;
    }
    for (int k = 0; k < H; k++) {
      i[k] = pb[k] + qb[k];
      f[k] = qb[k] - pb[k];
    }
    nn_vsigmoid(i, i, (size_t)2 * H); /* i and f together */
    for (int k = 0; k < H; k++) hb[k] = i[k] * qb[k] + f[k] * hp[k];
  }
}

void nn_atr_cell_bwd(float *dq, float *dp, float *dh_prev, const float *dh, const float *gates,
                     const float *q, const float *h_prev, const float *mask, int B, int H) {
  for (int b = 0; b < B; b++) {
    size_t o = (size_t)b * H;
    const float *dhb = dh + o, *qb = q + o, *hp = h_prev + o, *i = gates + 2 * o, *f = i + H;
    float *dqb = dq ? dq + o : NULL, *dpb = dp ? dp + o : NULL, *dhp = dh_prev ? dh_prev + o : NULL;
    if (mask && mask[b] == 0) { /* h = h_prev */
      for (int k = 0; dhp && k < H; k++) dhp[k] += dhb[k];
      continue;
    }
    for (int k = 0; k < H; k++) {
      float di = dhb[k] * qb[k] * i[k] * (1 - i[k]); /* through i's pre-activation p + q */
      float df = dhb[k] * hp[k] * f[k] * (1 - f[k]); /* through f's pre-activation q - p */
      if (dqb) dqb[k] += dhb[k] * i[k] + di + df;
      if (dpb) dpb[k] += di - df;
      if (dhp) dhp[k] += dhb[k] * f[k];
    }
  }
}

/* in: q, p, h_prev; out: h; save[0]: the gates i, f. */
static void cell_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *q = e->in[0], *p = e->in[1], *hp = e->in[2], *h = e->out[0];
  be->atr_cell_bwd(q->g, p->g, hp->g, h->g, e->save[0], q->v, hp->v, e->mask, h->rows, h->cols);
}
static const nn_opdef cell_op = {"atr_cell", cell_bw};

static bool shape_is(const nn_tensor *t, int rows, int cols) {
  return t && t->rows == rows && t->cols == cols;
}

void nn_atr_cell(nn_graph *g, nn_tensor *q, nn_tensor *p, nn_tensor *h_prev, const float *mask,
                 nn_tensor *h_out) {
  if (g->failed) return;
  int B = h_out->rows, H = h_out->cols;
  if (!nn_require(g, shape_is(q, B, H) && shape_is(p, B, H) && shape_is(h_prev, B, H),
                  "atr_cell: q, p and h_prev must be (%d,%d)", B, H))
    return;
  float *gates = nn_floats(g, (size_t)B * 2 * H, NULL);
  if (!gates) return;
  g->be->atr_cell_fwd(h_out->v, gates, q->v, p->v, h_prev->v, mask, B, H);
  nn_entry *e = nn_record(g, &cell_op);
  if (e)
    *e = (nn_entry){.op = &cell_op, .in = {q, p, h_prev}, .out = {h_out}, .save = {gates},
                    .mask = mask};
}

nn_tensor *nn_atr_layer(nn_graph *g, const nn_atr_w *w, nn_tensor *X, const float *mask, int T,
                        nn_tensor *h0) {
  if (g->failed || !nn_require(g, T > 0 && X->rows % T == 0, "atr: %d rows for %d steps", X->rows, T))
    return NULL;
  int B = X->rows / T, H = w->Wh->rows;
  nn_tensor *Q = nn_matmul(g, X, false, w->Wx, false); /* (T*B,H): the input side in one GEMM */
  nn_tensor *P = nn_zeros(g, T * B, H); /* the history side: b, then h·Wh step by step */
  nn_tensor *Hs = nn_new(g, T * B, H), *h = h0 ? h0 : nn_zeros(g, B, H);
  if (!Q || !P || !Hs || !h) return NULL;
  nn_recur rec;
  if (!nn_recur_begin(g, &rec, w->Wh, nn_add_bias(g, P, w->b), T, B)) return NULL;
  for (int t = 0; t < T && !g->failed; t++) {
    nn_tensor *p = nn_recur_step(g, &rec, t, h);
    nn_tensor *q = nn_rows(g, Q, t * B, B), *h_t = nn_rows(g, Hs, t * B, B);
    if (g->failed) break;
    nn_atr_cell(g, q, p, h, mask ? mask + (size_t)t * B : NULL, h_t);
    h = h_t;
  }
  return g->failed ? NULL : Hs;
}

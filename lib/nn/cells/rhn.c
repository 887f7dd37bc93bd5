/* The fused RHN micro-step (forward and hand-written backward), the time step
 * of L micro-steps and the layer loop. */
#include "nn/cells/rhn.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/vmath.h"
#include <string.h>
#include "nn/vectorise_any_length.h"

void nn_rhn_cell_fwd(float *s, float *act, const float *z, const float *z2, const float *bias,
                     const float *s_prev, const float *mask, int B, int H, bool coupled) {
  int G = nn_rhn_gates(coupled) * H;
  for (int b = 0; b < B; b++) {
    const float *zb = z + (size_t)b * G, *z2b = z2 ? z2 + (size_t)b * G : NULL;
    const float *sp = s_prev + (size_t)b * H;
    float *a = act + (size_t)b * G, *sb = s + (size_t)b * H;
    if (mask && mask[b] == 0) {
      memcpy(sb, sp, (size_t)H * sizeof *sb);
      continue;
    }
    if (z2b || bias)
      for (int k = 0; k < G; k++) a[k] = zb[k] + (z2b ? z2b[k] : 0) + (bias ? bias[k] : 0);
    const float *pre = z2b || bias ? a : zb;
    nn_vtanh(a, pre, (size_t)H);                   /* h */
    nn_vsigmoid(a + H, pre + H, (size_t)(G - H)); /* t, c */
    const float *h = a, *t = a + H, *c = a + 2 * H;
    if (coupled)
      for (int k = 0; k < H; k++) sb[k] = sp[k] + t[k] * (h[k] - sp[k]);
    else
      for (int k = 0; k < H; k++) sb[k] = h[k] * t[k] + sp[k] * c[k];
  }
}

/* Gate gradients: dz_H = ds⊙t⊙(1-h²), dz_T = ds⊙(h - s_prev or h)⊙t(1-t),
 * dz_C = ds⊙s_prev⊙c(1-c); ds_prev gets ds⊙(c or 1-t). */
void nn_rhn_cell_bwd(float *dz, float *dz2, float *dbias, float *ds_prev, const float *ds,
                     const float *act, const float *s_prev, const float *mask, int B, int H,
                     bool coupled) {
  int G = nn_rhn_gates(coupled) * H;
  for (int b = 0; b < B; b++) {
    const float *dsb = ds + (size_t)b * H, *sp = s_prev + (size_t)b * H;
    float *dsp = ds_prev ? ds_prev + (size_t)b * H : NULL;
    if (mask && mask[b] == 0) { /* s = s_prev */
      for (int k = 0; dsp && k < H; k++) dsp[k] += dsb[k];
      continue;
    }
    const float *h = act + (size_t)b * G, *t = h + H, *c = h + 2 * H;
    float *dzs[3] = {dz ? dz + (size_t)b * G : NULL, dz2 ? dz2 + (size_t)b * G : NULL, dbias};
    for (int k = 0; k < H; k++) {
      float gh = dsb[k] * t[k] * (1 - h[k] * h[k]);
      float gt = dsb[k] * (coupled ? h[k] - sp[k] : h[k]) * t[k] * (1 - t[k]);
      float gc = coupled ? 0 : dsb[k] * sp[k] * c[k] * (1 - c[k]);
      for (int i = 0; i < 3; i++) {
        if (!dzs[i]) continue;
        dzs[i][k] += gh;
        dzs[i][H + k] += gt;
        if (!coupled) dzs[i][2 * H + k] += gc;
      }
      if (dsp) dsp[k] += dsb[k] * (coupled ? 1 - t[k] : c[k]);
    }
  }
}

/* in: z, z2, bias, s_prev; out: s; save[0]: activated gates; n[0]: coupled. */
static void cell_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *z = e->in[0], *z2 = e->in[1], *bias = e->in[2], *sp = e->in[3], *s = e->out[0];
  be->rhn_cell_bwd(z->g, z2 ? z2->g : NULL, bias ? bias->g : NULL, sp->g, s->g, e->save[0], sp->v,
                  e->mask, s->rows, s->cols, e->n[0]);
}
static const nn_opdef cell_op = {"rhn_cell", cell_bw};

static bool shape_is(const nn_tensor *t, int rows, int cols) {
  return t && t->rows == rows && t->cols == cols;
}

void nn_rhn_cell(nn_graph *g, nn_tensor *z, nn_tensor *z2, nn_tensor *bias, nn_tensor *s_prev,
                 const float *mask, bool coupled, nn_tensor *s_out) {
  if (g->failed) return;
  int B = s_out->rows, H = s_out->cols, G = nn_rhn_gates(coupled) * H;
  if (!nn_require(g, shape_is(z, B, G) && (!z2 || shape_is(z2, B, G)) &&
                         (!bias || shape_is(bias, 1, G)) && shape_is(s_prev, B, H),
                  "rhn_cell: gates must be (%d,%d), states (%d,%d)", B, G, B, H))
    return;
  float *act = nn_floats(g, (size_t)B * G, NULL);
  if (!act) return;
  g->be->rhn_cell_fwd(s_out->v, act, z->v, z2 ? z2->v : NULL, bias ? bias->v : NULL, s_prev->v, mask,
                  B, H, coupled);
  nn_entry *e = nn_record(g, &cell_op);
  if (e)
    *e = (nn_entry){.op = &cell_op, .in = {z, z2, bias, s_prev}, .out = {s_out}, .save = {act},
                    .mask = mask, .n = {coupled}};
}

bool nn_rhn_recur_begin(nn_graph *g, nn_rhn_recur *r, const nn_rhn_w *w, nn_tensor *Z1, int T,
                        int B) {
  if (!nn_require(g, w->depth >= 1 && w->depth <= NN_RHN_MAX_DEPTH, "rhn: recurrence depth %d",
                  w->depth))
    return false;
  for (int l = 0; l < w->depth; l++)
    if (!nn_recur_begin(g, &r->rec[l], w->R[l], l ? NULL : Z1, T, B)) return false;
  return true;
}

nn_tensor *nn_rhn_step(nn_graph *g, const nn_rhn_w *w, nn_tensor *z1, nn_tensor *r1, nn_tensor *s0,
                       const float *mask, nn_rhn_recur *rec, int t, nn_tensor *s_out) {
  nn_rhn_recur one;
  if (!rec) { /* a sequence of one step */
    if (!nn_rhn_recur_begin(g, &one, w, NULL, 1, s0->rows)) return NULL;
    rec = &one;
    t = 0;
  }
  nn_tensor *s = s0;
  for (int l = 0; l < w->depth && !g->failed; l++) {
    nn_tensor *z = nn_recur_step(g, &rec->rec[l], t, l ? s : r1);
    nn_tensor *next = l == w->depth - 1 && s_out ? s_out : nn_new(g, s0->rows, s0->cols);
    if (!z || !next) return NULL;
    nn_rhn_cell(g, z, l ? NULL : z1, l ? w->b[l] : NULL, s, mask, w->coupled, next);
    s = next;
  }
  return g->failed ? NULL : s;
}

nn_tensor *nn_rhn_layer(nn_graph *g, const nn_rhn_w *w, nn_tensor *X, const float *mask, int T,
                        nn_tensor *s0) {
  if (g->failed || !nn_require(g, T > 0 && X->rows % T == 0, "rhn: %d rows for %d steps", X->rows, T))
    return NULL;
  int B = X->rows / T, H = w->W->cols / nn_rhn_gates(w->coupled);
  nn_tensor *Z1 = nn_linear(g, X, w->W, w->b[0]); /* (T*B, G·H); each step adds s·R[0] */
  nn_tensor *Ss = nn_new(g, T * B, H), *s = s0 ? s0 : nn_zeros(g, B, H);
  nn_rhn_recur rec;
  if (!Z1 || !Ss || !s || !nn_rhn_recur_begin(g, &rec, w, Z1, T, B)) return NULL;
  for (int t = 0; t < T && !g->failed; t++)
    s = nn_rhn_step(g, w, NULL, s, s, mask ? mask + (size_t)t * B : NULL, &rec, t,
                    nn_rows(g, Ss, t * B, B));
  return g->failed ? NULL : Ss;
}

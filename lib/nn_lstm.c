/* The fused LSTM cell (forward and hand-written backward) and the layer loop. */
#include "nn_lstm.h"
#include "nn_kernels.h"
#include "nn_ops.h"
#include <math.h>
#include <string.h>

static float sigm(float x) { return 1.0f / (1.0f + expf(-x)); }

void nn_lstm_cell_fwd(float *h, float *c, float *act, const float *gx, const float *gh,
                      const float *h_prev, const float *c_prev, const float *mask, int B, int H) {
  for (int b = 0; b < B; b++) {
    const float *x = gx + (size_t)b * 4 * H, *r = gh ? gh + (size_t)b * 4 * H : NULL;
    float *a = act + (size_t)b * 4 * H, *hb = h + (size_t)b * H, *cb = c + (size_t)b * H;
    const float *cp = c_prev + (size_t)b * H, *hp = h_prev + (size_t)b * H;
    for (int k = 0; k < 4 * H; k++) {
      float z = x[k] + (r ? r[k] : 0);
      a[k] = k < 3 * H ? sigm(z) : tanhf(z); /* i, f, o | g */
    }
    if (mask && mask[b] == 0) {
      memcpy(hb, hp, (size_t)H * sizeof *hb);
      memcpy(cb, cp, (size_t)H * sizeof *cb);
      continue;
    }
    const float *i = a, *f = a + H, *o = a + 2 * H, *gg = a + 3 * H;
    for (int k = 0; k < H; k++) {
      cb[k] = f[k] * cp[k] + i[k] * gg[k];
      hb[k] = o[k] * tanhf(cb[k]);
    }
  }
}

void nn_lstm_cell_bwd(float *dgx, float *dgh, float *dh_prev, float *dc_prev, const float *dh,
                      const float *dc, const float *act, const float *c, const float *c_prev,
                      const float *mask, int B, int H) {
  for (int b = 0; b < B; b++) {
    const float *dhb = dh + (size_t)b * H, *dcb = dc + (size_t)b * H;
    if (mask && mask[b] == 0) { /* h = h_prev, c = c_prev */
      for (int k = 0; k < H; k++) {
        if (dh_prev) dh_prev[(size_t)b * H + k] += dhb[k];
        if (dc_prev) dc_prev[(size_t)b * H + k] += dcb[k];
      }
      continue;
    }
    const float *a = act + (size_t)b * 4 * H, *cb = c + (size_t)b * H, *cp = c_prev + (size_t)b * H;
    const float *i = a, *f = a + H, *o = a + 2 * H, *gg = a + 3 * H;
    for (int k = 0; k < H; k++) {
      float tc = tanhf(cb[k]);
      float dct = dcb[k] + dhb[k] * o[k] * (1 - tc * tc); /* total dL/dc */
      float dz[4] = {
          dct * gg[k] * i[k] * (1 - i[k]),    /* i */
          dct * cp[k] * f[k] * (1 - f[k]),    /* f */
          dhb[k] * tc * o[k] * (1 - o[k]),    /* o */
          dct * i[k] * (1 - gg[k] * gg[k]),   /* g */
      };
      for (int q = 0; q < 4; q++) {
        size_t at = (size_t)b * 4 * H + (size_t)q * H + k;
        if (dgx) dgx[at] += dz[q];
        if (dgh) dgh[at] += dz[q];
      }
      if (dc_prev) dc_prev[(size_t)b * H + k] += dct * f[k];
    }
  }
}

/* in: gx, gh, h_prev, c_prev; out: h, c; save[0]: activated gates. */
static void cell_bw(const nn_entry *e) {
  nn_tensor *gx = e->in[0], *gh = e->in[1], *hp = e->in[2], *cp = e->in[3];
  nn_tensor *h = e->out[0], *c = e->out[1];
  nn_lstm_cell_bwd(gx->g, gh ? gh->g : NULL, hp->g, cp->g, h->g, c->g, e->save[0], c->v, cp->v,
                   e->mask, h->rows, h->cols);
}
static const nn_opdef cell_op = {"lstm_cell", cell_bw};

static bool shape_is(const nn_tensor *t, int rows, int cols) {
  return t && t->rows == rows && t->cols == cols;
}

void nn_lstm_cell(nn_graph *g, nn_tensor *gx, nn_tensor *gh, nn_tensor *h_prev, nn_tensor *c_prev,
                  const float *mask, nn_tensor *h_out, nn_tensor *c_out) {
  if (g->failed) return;
  int B = h_out->rows, H = h_out->cols;
  if (!nn_require(g, shape_is(gx, B, 4 * H) && (!gh || shape_is(gh, B, 4 * H)) &&
                         shape_is(h_prev, B, H) && shape_is(c_prev, B, H) && shape_is(c_out, B, H),
                  "lstm_cell: gates must be (%d,%d), states (%d,%d)", B, 4 * H, B, H))
    return;
  float *act = nn_floats(g, (size_t)B * 4 * H, NULL);
  if (!act) return;
  nn_lstm_cell_fwd(h_out->v, c_out->v, act, gx->v, gh ? gh->v : NULL, h_prev->v, c_prev->v, mask, B, H);
  nn_entry *e = nn_record(g, &cell_op);
  if (e)
    *e = (nn_entry){.op = &cell_op, .in = {gx, gh, h_prev, c_prev}, .out = {h_out, c_out},
                    .save = {act}, .mask = mask};
}

static nn_tensor *zeros(nn_graph *g, int rows, int cols) {
  nn_tensor *t = nn_new(g, rows, cols);
  if (t) memset(t->v, 0, (size_t)rows * cols * sizeof(float));
  return t;
}

nn_tensor *nn_lstm_layer(nn_graph *g, const nn_lstm_w *w, nn_tensor *X, const float *mask, int T,
                         nn_tensor *h0, nn_tensor *c0, nn_tensor **c_seq) {
  if (g->failed || !nn_require(g, T > 0 && X->rows % T == 0, "lstm: %d rows for %d steps", X->rows, T))
    return NULL;
  int B = X->rows / T, H = w->Wh->rows;
  nn_tensor *G = nn_linear(g, X, w->Wx, w->b); /* (T*B, 4H) */
  nn_tensor *Hs = nn_new(g, T * B, H), *Cs = nn_new(g, T * B, H);
  nn_tensor *h = h0 ? h0 : zeros(g, B, H), *c = c0 ? c0 : zeros(g, B, H);
  for (int t = 0; t < T && !g->failed; t++) {
    nn_tensor *gh = nn_matmul(g, h, false, w->Wh, false); /* (B, 4H) */
    nn_tensor *h_t = nn_rows(g, Hs, t * B, B), *c_t = nn_rows(g, Cs, t * B, B);
    if (g->failed) break;
    nn_lstm_cell(g, nn_rows(g, G, t * B, B), gh, h, c, mask ? mask + (size_t)t * B : NULL, h_t, c_t);
    h = h_t;
    c = c_t;
  }
  if (c_seq) *c_seq = g->failed ? NULL : Cs;
  return g->failed ? NULL : Hs;
}

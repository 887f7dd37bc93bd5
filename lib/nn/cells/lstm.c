/* The fused LSTM cell (forward and hand-written backward) and the layer loop. */
#include "nn/cells/lstm.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/vmath.h"
#include "nn/vectorise_any_length.h"

void nn_lstm_cell_fwd(float *h, float *c, float *act, const float *gx, const float *gh,
                      const float *h_prev, const float *c_prev, const float *mask, int B, int H) {
  for (int b = 0; b < B; b++) {
    const float *x = gx + (size_t)b * 4 * H, *r = gh ? gh + (size_t)b * 4 * H : NULL;
    float *a = act + (size_t)b * 5 * H, *hb = h + (size_t)b * H, *cb = c + (size_t)b * H;
    const float *cp = c_prev + (size_t)b * H, *hp = h_prev + (size_t)b * H;
    if (nn_lstm_carry_fwd(mask, b, hb, cb, hp, cp, H)) continue;
    if (r)
      for (int k = 0; k < 4 * H; k++) a[k] = x[k] + r[k];
    nn_vsigmoid(a, r ? a : x, (size_t)3 * H); /* i, f, o */
    nn_vtanh(a + 3 * H, r ? a + 3 * H : x + 3 * H, (size_t)H); /* g */
    const float *i = a, *f = a + H, *o = a + 2 * H, *gg = a + 3 * H;
    float *tc = a + 4 * H;
    for (int k = 0; k < H; k++) cb[k] = f[k] * cp[k] + i[k] * gg[k];
    nn_vtanh(tc, cb, (size_t)H);
    for (int k = 0; k < H; k++) hb[k] = o[k] * tc[k];
  }
}


void nn_lstm_cell_bwd(float *dgx, float *dgh, float *dh_prev, float *dc_prev, const float *dh,
                      const float *dc, const float *act, const float *c, const float *c_prev,
                      const float *mask, int B, int H) {
  float dz[4][NN_LSTM_CHUNK], dct[NN_LSTM_CHUNK]; /* gates i, f, o, g; total dL/dc */
  for (int b = 0; b < B; b++) {
    const float *dhb = dh + (size_t)b * H, *dcb = dc + (size_t)b * H;
    float *dhp = dh_prev ? dh_prev + (size_t)b * H : NULL;
    float *dcp = dc_prev ? dc_prev + (size_t)b * H : NULL;
    if (nn_lstm_carry_bwd(mask, b, dhp, dcp, dhb, dcb, H)) continue;
    const float *a = act + (size_t)b * 5 * H, *cp = c_prev + (size_t)b * H;
    for (int k0 = 0; k0 < H; k0 += NN_LSTM_CHUNK) {
      int n = H - k0 < NN_LSTM_CHUNK ? H - k0 : NN_LSTM_CHUNK;
      const float *i = a + k0, *f = i + H, *o = i + 2 * H, *gg = i + 3 * H, *tc = i + 4 * H;
      const float *dhk = dhb + k0, *dck = dcb + k0, *cpk = cp + k0;
      for (int k = 0; k < n; k++) {
        dct[k] = dck[k] + dhk[k] * o[k] * (1 - tc[k] * tc[k]);
        dz[0][k] = dct[k] * gg[k] * i[k] * (1 - i[k]);
        dz[1][k] = dct[k] * cpk[k] * f[k] * (1 - f[k]);
        dz[2][k] = dhk[k] * tc[k] * o[k] * (1 - o[k]);
        dz[3][k] = dct[k] * i[k] * (1 - gg[k] * gg[k]);
      }
      nn_lstm_add_gates(dgx ? dgx + (size_t)b * 4 * H : NULL, dz, k0, n, H);
      nn_lstm_add_gates(dgh ? dgh + (size_t)b * 4 * H : NULL, dz, k0, n, H);
      for (int k = 0; dcp && k < n; k++) dcp[k0 + k] += dct[k] * f[k];
    }
  }
}

/* in: gx, gh, h_prev, c_prev; out: h, c; save[0]: activated gates and tanh(c). */
static void cell_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *gx = e->in[0], *gh = e->in[1], *hp = e->in[2], *cp = e->in[3];
  nn_tensor *h = e->out[0], *c = e->out[1];
  be->lstm_cell_bwd(gx->g, gh ? gh->g : NULL, hp->g, cp->g, h->g, c->g, e->save[0], c->v, cp->v,
                   e->mask, h->rows, h->cols);
}
static const nn_opdef cell_op = {"lstm_cell", cell_bw};

static bool shape_is(const nn_tensor *t, int rows, int cols) {
  return t && t->rows == rows && t->cols == cols;
}

/* The cell into act (B·5H floats: a fresh buffer when training, since the
 * tape keeps it; one scratch buffer for every step of a layer otherwise). */
static void cell(nn_graph *g, float *act, nn_tensor *gx, nn_tensor *gh, nn_tensor *h_prev, nn_tensor *c_prev,
                 const float *mask, nn_tensor *h_out, nn_tensor *c_out) {
  if (g->failed) return;
  int B = h_out->rows, H = h_out->cols;
  if (!nn_require(g, shape_is(gx, B, 4 * H) && (!gh || shape_is(gh, B, 4 * H)) &&
                         shape_is(h_prev, B, H) && shape_is(c_prev, B, H) && shape_is(c_out, B, H),
                  "lstm_cell: gates must be (%d,%d), states (%d,%d)", B, 4 * H, B, H))
    return;
  if (!act && !(act = nn_floats(g, (size_t)B * 5 * H, NULL))) return;
  g->be->lstm_cell_fwd(h_out->v, c_out->v, act, gx->v, gh ? gh->v : NULL, h_prev->v, c_prev->v, mask, B, H);
  nn_entry *e = nn_record(g, &cell_op);
  if (e)
    *e = (nn_entry){.op = &cell_op, .in = {gx, gh, h_prev, c_prev}, .out = {h_out, c_out},
                    .save = {act}, .mask = mask};
}

void nn_lstm_cell(nn_graph *g, nn_tensor *gx, nn_tensor *gh, nn_tensor *h_prev, nn_tensor *c_prev,
                  const float *mask, nn_tensor *h_out, nn_tensor *c_out) {
  cell(g, NULL, gx, gh, h_prev, c_prev, mask, h_out, c_out);
}

nn_tensor *nn_lstm_layer(nn_graph *g, const nn_lstm_w *w, nn_tensor *X, const float *mask, int T,
                         nn_tensor *h0, nn_tensor *c0, nn_tensor **c_seq) {
  if (g->failed || !nn_require(g, T > 0 && X->rows % T == 0, "lstm: %d rows for %d steps", X->rows, T))
    return NULL;
  int B = X->rows / T, H = w->Wh->rows;
  nn_tensor *G = nn_linear(g, X, w->Wx, w->b); /* (T*B, 4H); each step adds h·Wh */
  nn_tensor *Hs = nn_new(g, T * B, H), *Cs = nn_new(g, T * B, H);
  nn_tensor *h = h0 ? h0 : nn_zeros(g, B, H), *c = c0 ? c0 : nn_zeros(g, B, H);
  /* decoding keeps no tape: the steps share one buffer for the gates (a
   * source's worth of them was 5/11 of the encoder's memory) */
  float *act = g->train ? NULL : nn_floats(g, (size_t)B * 5 * H, NULL);
  nn_recur rec;
  if (!G || !nn_recur_begin(g, &rec, w->Wh, G, T, B)) return NULL;
  for (int t = 0; t < T && !g->failed; t++) {
    nn_tensor *gates = nn_recur_step(g, &rec, t, h);
    nn_tensor *h_t = nn_rows(g, Hs, t * B, B), *c_t = nn_rows(g, Cs, t * B, B);
    if (g->failed) break;
    cell(g, act, gates, NULL, h, c, mask ? mask + (size_t)t * B : NULL, h_t, c_t);
    h = h_t;
    c = c_t;
  }
  if (c_seq) *c_seq = g->failed ? NULL : Cs;
  return g->failed ? NULL : Hs;
}

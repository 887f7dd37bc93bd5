/* The fused peephole LSTM cell: forward, hand-written backward, tape op. */
#include "nn/cells/lstm_peep.h"
#include "nn/cells/lstm.h"
#include "nn/vmath.h"
#include <string.h>
#include "nn/vectorise_any_length.h"

void nn_lstm_peep_fwd(float *h, float *c, float *act, const float *gx, const float *gh,
                      const float *peep, const float *h_prev, const float *c_prev,
                      const float *mask, int B, int H) {
  const float *pi = peep, *pf = peep + H, *po = peep + 2 * H;
  for (int b = 0; b < B; b++) {
    const float *x = gx + (size_t)b * 4 * H, *r = gh ? gh + (size_t)b * 4 * H : NULL;
    float *a = act + (size_t)b * 5 * H, *hb = h + (size_t)b * H, *cb = c + (size_t)b * H;
    const float *cp = c_prev + (size_t)b * H, *hp = h_prev + (size_t)b * H;
    if (nn_lstm_carry_fwd(mask, b, hb, cb, hp, cp, H)) continue;
    if (r)
      for (int k = 0; k < 4 * H; k++) a[k] = x[k] + r[k];
    else
      memcpy(a, x, sizeof(float) * 4 * (size_t)H);
    float *i = a, *f = a + H, *o = a + 2 * H, *gg = a + 3 * H, *tc = a + 4 * H;
    for (int k = 0; k < H; k++) {
      i[k] += pi[k] * cp[k];
      f[k] += pf[k] * cp[k];
    }
    nn_vsigmoid(a, a, (size_t)2 * H);
    nn_vtanh(gg, gg, (size_t)H);
    for (int k = 0; k < H; k++) cb[k] = f[k] * cp[k] + i[k] * gg[k];
    for (int k = 0; k < H; k++) o[k] += po[k] * cb[k]; /* the output gate sees the new c */
    nn_vsigmoid(o, o, (size_t)H);
    nn_vtanh(tc, cb, (size_t)H);
    for (int k = 0; k < H; k++) hb[k] = o[k] * tc[k];
  }
}


void nn_lstm_peep_bwd(float *dgx, float *dgh, float *dpeep, float *dh_prev, float *dc_prev,
                      const float *dh, const float *dc, const float *act, const float *peep,
                      const float *c, const float *c_prev, const float *mask, int B, int H) {
  float dz[4][NN_LSTM_CHUNK], dct[NN_LSTM_CHUNK]; /* gates i, f, o, g; total dL/dc */
  for (int b = 0; b < B; b++) {
    const float *dhb = dh + (size_t)b * H, *dcb = dc + (size_t)b * H;
    float *dhp = dh_prev ? dh_prev + (size_t)b * H : NULL;
    float *dcp = dc_prev ? dc_prev + (size_t)b * H : NULL;
    if (nn_lstm_carry_bwd(mask, b, dhp, dcp, dhb, dcb, H)) continue;
    const float *a = act + (size_t)b * 5 * H, *cp = c_prev + (size_t)b * H, *cb = c + (size_t)b * H;
    for (int k0 = 0; k0 < H; k0 += NN_LSTM_CHUNK) {
      int n = H - k0 < NN_LSTM_CHUNK ? H - k0 : NN_LSTM_CHUNK;
      const float *i = a + k0, *f = i + H, *o = i + 2 * H, *gg = i + 3 * H, *tc = i + 4 * H;
      const float *pi = peep + k0, *pf = pi + H, *po = pi + 2 * H;
      const float *dhk = dhb + k0, *dck = dcb + k0, *cpk = cp + k0, *ck = cb + k0;
      for (int k = 0; k < n; k++) {
        dz[2][k] = dhk[k] * tc[k] * o[k] * (1 - o[k]);
        dct[k] = dck[k] + dhk[k] * o[k] * (1 - tc[k] * tc[k]) + dz[2][k] * po[k];
        dz[0][k] = dct[k] * gg[k] * i[k] * (1 - i[k]);
        dz[1][k] = dct[k] * cpk[k] * f[k] * (1 - f[k]);
        dz[3][k] = dct[k] * i[k] * (1 - gg[k] * gg[k]);
      }
      nn_lstm_add_gates(dgx ? dgx + (size_t)b * 4 * H : NULL, dz, k0, n, H);
      nn_lstm_add_gates(dgh ? dgh + (size_t)b * 4 * H : NULL, dz, k0, n, H);
      for (int k = 0; dcp && k < n; k++)
        dcp[k0 + k] += dct[k] * f[k] + dz[0][k] * pi[k] + dz[1][k] * pf[k];
      for (int k = 0; dpeep && k < n; k++) {
        dpeep[k0 + k] += dz[0][k] * cpk[k];
        dpeep[H + k0 + k] += dz[1][k] * cpk[k];
        dpeep[2 * H + k0 + k] += dz[2][k] * ck[k];
      }
    }
  }
}

/* in: gx, gh, h_prev, c_prev; aux: peep; out: h, c; save[0]: activated gates and tanh(c). */
static void cell_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *gx = e->in[0], *gh = e->in[1], *hp = e->in[2], *cp = e->in[3], *peep = e->aux;
  nn_tensor *h = e->out[0], *c = e->out[1];
  be->lstm_peep_bwd(gx->g, gh ? gh->g : NULL, peep->g, hp->g, cp->g, h->g, c->g, e->save[0],
                   peep->v, c->v, cp->v, e->mask, h->rows, h->cols);
}
static const nn_opdef cell_op = {"lstm_peep_cell", cell_bw};

static bool shape_is(const nn_tensor *t, int rows, int cols) {
  return t && t->rows == rows && t->cols == cols;
}

void nn_lstm_peep_cell(nn_graph *g, nn_tensor *gx, nn_tensor *gh, nn_tensor *peep,
                       nn_tensor *h_prev, nn_tensor *c_prev, const float *mask, nn_tensor *h_out,
                       nn_tensor *c_out) {
  if (!peep) {
    nn_lstm_cell(g, gx, gh, h_prev, c_prev, mask, h_out, c_out);
    return;
  }
  if (g->failed) return;
  int B = h_out->rows, H = h_out->cols;
  if (!nn_require(g, shape_is(gx, B, 4 * H) && (!gh || shape_is(gh, B, 4 * H)) &&
                         shape_is(peep, 1, 3 * H) && shape_is(h_prev, B, H) &&
                         shape_is(c_prev, B, H) && shape_is(c_out, B, H),
                  "lstm_peep_cell: gates must be (%d,%d), peepholes (1,%d), states (%d,%d)", B,
                  4 * H, 3 * H, B, H))
    return;
  float *act = nn_floats(g, (size_t)B * 5 * H, NULL);
  if (!act) return;
  g->be->lstm_peep_fwd(h_out->v, c_out->v, act, gx->v, gh ? gh->v : NULL, peep->v, h_prev->v,
                   c_prev->v, mask, B, H);
  nn_entry *e = nn_record(g, &cell_op);
  if (e)
    *e = (nn_entry){.op = &cell_op, .in = {gx, gh, h_prev, c_prev}, .out = {h_out, c_out},
                    .save = {act}, .mask = mask, .aux = peep};
}

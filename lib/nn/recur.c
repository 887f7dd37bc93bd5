/* A weight applied step by step to a sequence, its gradient one GEMM over
 * all steps (see nn/recur.h). */
#include "nn/recur.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/pgemm.h"
#include <string.h>

/* dW += Xᵀ·dY over all steps, after every step's backward has filled dY. */
static void recur_weight_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *W = e->in[0], *Y = e->in[1];
  if (W->g)
    be->gemm(true, false, W->rows, W->cols, Y->rows, 1, e->save[0], W->rows, Y->g, Y->cols, 1, W->g,
            W->cols);
}
static const nn_opdef recur_weight_op = {"recur_weight", recur_weight_bw};

bool nn_recur_begin(nn_graph *g, nn_recur *r, nn_tensor *W, nn_tensor *Y, int T, int B) {
  if (g->failed) return false;
  *r = (nn_recur){.W = W, .Y = Y ? Y : nn_zeros(g, T * B, W->cols), .T = T, .B = B};
  if (!r->Y || !nn_require(g, r->Y->rows == T * B && r->Y->cols == W->cols,
                           "recur: output (%d,%d) for %d steps of %d rows and W (%d,%d)",
                           r->Y->rows, r->Y->cols, T, B, W->rows, W->cols))
    return false;
  float *P;
  if (W->pk) /* packed once for all batches (inference, nn_params_pack) */
    r->PW = W->pk;
  else if (!W->q && (P = nn_floats(g, nn_packed_floats(W->rows, W->cols), NULL))) /* an int8 W keeps its own product */
    r->PW = g->be->pack_weight(P, W->v, W->rows, W->cols, false);
  if (!g->train) return !g->failed;
  r->X = nn_floats(g, (size_t)T * B * W->rows, NULL);
  if ((P = nn_floats(g, nn_packed_floats(W->cols, W->rows), NULL)))
    r->PT = g->be->pack_weight(P, W->v, W->cols, W->rows, true);
  nn_entry *e = nn_record(g, &recur_weight_op);
  if (e) *e = (nn_entry){.op = &recur_weight_op, .in = {W, r->Y}, .save = {r->X}};
  return !g->failed;
}

/* in: x; out: the step's rows of Y; save[0]: Wᵀ (Out, In) packed. */
static void recur_step_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *x = e->in[0], *y = e->out[0];
  if (x->g)
    be->gemm_packed(x->rows, x->cols, y->cols, y->g, y->cols, e->save[0], 1, x->g, x->cols);
}
static const nn_opdef recur_step_op = {"recur_step", recur_step_bw};

nn_tensor *nn_recur_step(nn_graph *g, nn_recur *r, int t, nn_tensor *x) {
  if (g->failed || !nn_require(g, t >= 0 && t < r->T && x->rows == r->B && x->cols == r->W->rows,
                               "recur: step %d of %d with input (%d,%d) for W (%d,%d)", t, r->T,
                               x->rows, x->cols, r->W->rows, r->W->cols))
    return NULL;
  nn_tensor *y = nn_rows(g, r->Y, t * r->B, r->B);
  if (!y) return NULL;
  if (r->PW)
    g->be->gemm_packed(x->rows, y->cols, x->cols, x->v, x->cols, r->PW, 1, y->v, y->cols);
  else if (!nn_gemm_weights(g, x->rows, y->cols, x->v, x->cols, r->W, 1, y->v, y->cols))
    return NULL;
  if (!g->train) return y;
  if (g->be->copy(r->X + (size_t)t * r->B * x->cols, x->v, sizeof(float) * (size_t)x->rows * x->cols)) {
    g->failed = true;
    return NULL;
  }
  nn_entry *e = nn_record(g, &recur_step_op);
  if (e) *e = (nn_entry){.op = &recur_step_op, .in = {x}, .out = {y}, .save = {(float *)r->PT}};
  return y;
}

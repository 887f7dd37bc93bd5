/* The shared whole-model harness; see models/model_case.h. */
#include "models/model_case.h"
#include "base/err.h"
#include "nn/optim.h"
#include "test.h"

const int copy_src[4 * 3] = {3, 4, 5, 6, 5, 6, 4, 0, 3, 5, 0, 0};
const int copy_src_len[3] = {4, 2, 3};
const int copy_tgt_in[5 * 3] = {1, 1, 1, 3, 4, 5, 6, 5, 6, 4, 0, 3, 5, 0, 0};
const int copy_tgt_out[5 * 3] = {3, 4, 5, 6, 5, 6, 4, 2, 3, 5, 0, 2, 2, 0, 0};

nn_tensor *build_model(nn_graph *g, nn_params *p, void *ctx) {
  model_case *mc = ctx;
  return nmt_net_forward(g, &mc->m, p, &mc->batch, &mc->ntokens);
}

bool model_setup(model_case *mc, nn_params *p, const nmt_net_cfg *cfg, nmt_batch b, uint64_t seed) {
  *p = (nn_params){0};
  int st = nmt_net_layout(&mc->m, cfg, p);
  CHECK_INT(st, 0);
  if (st || nn_params_alloc(p)) return false;
  nn_params_init(p, NN_INIT_UNIFORM, 0.3f, seed);
  mc->batch = b;
  if ((b.S + b.T) * b.B > MODEL_CASE_MAX_TOKENS) return T_FAIL("batch too big for model_case"), false;
  nmt_batch_set_masks(&mc->batch, mc->tgt_len, mc->masks);
  return true;
}

bool model_train(model_case *mc, nn_params *p, int steps, float lr, double *first, double *last) {
  nn_graph g = {.seed = 1};
  nn_adam opt = {lr, 0.9f, 0.999f, 1e-8f, 1};
  bool ok = true;
  *first = *last = 0;
  for (int step = 0; step < steps && ok; step++) {
    nn_graph_reset(&g, true, (uint64_t)step);
    nn_params_zero_grad(p);
    nn_tensor *loss = build_model(&g, p, mc);
    ok = loss && !nn_tape_backward(&g, loss, 1.0f / (float)mc->ntokens);
    if (!ok) {
      T_FAIL("step %d: %s", step, nmt_errmsg());
      break;
    }
    nn_params_clip(p, 5);
    /* The rate decays linearly to 0 over the second half: at a constant rate Adam's
     * steps near convergence can spike the loss, and whether the last step landed in a
     * spike depended on BLAS rounding (OpenBLAS's Haswell kernels). */
    opt.lr = lr * fminf(1, 2 * (float)(steps - step) / (float)steps);
    nn_adam_step(p, &opt);
    *last = loss->v[0] / (double)mc->ntokens;
    if (!step) *first = *last;
  }
  nn_graph_free(&g);
  return ok;
}

/* The shared whole-model harness; see test_nn_model.h. */
#include "test_nn_model.h"
#include "test.h"

nn_tensor *build_model(nn_graph *g, nn_params *p, void *ctx) {
  model_case *mc = ctx;
  return nn_net_forward(g, &mc->m, p, &mc->batch, &mc->ntokens);
}

bool model_setup(model_case *mc, nn_params *p, const nn_net_cfg *cfg, nn_batch b, uint64_t seed) {
  *p = (nn_params){0};
  int st = nn_net_layout(&mc->m, cfg, p);
  CHECK_INT(st, 0);
  if (st || nn_params_alloc(p)) return false;
  nn_params_init(p, NN_INIT_UNIFORM, 0.3f, seed);
  mc->batch = b;
  return true;
}

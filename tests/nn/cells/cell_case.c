/* The cell tests' shared batch and layer check; see cell_case.h. */
#include "nn/cells/cell_case.h"
#include "base/err.h"
#include "test.h"

/* Sentence 0 has 4 steps, sentence 1 has 2, sentence 2 has 3. */
const float step_mask[T * B] = {1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0};

void t_cell_check_layer_at(const char *file, int line, nn_params *p, int w0, int w1, t_nn_build build,
                           void *ctx) {
  for (int i = w0; i <= w1; i++)
    for (int k = 0; k < p->views[i].rows * p->views[i].cols; k++) p->w[p->views[i].off + k] *= 0.5f;
  t_nn_gradcheck_at(file, line, p, build, ctx);
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  nn_tensor *y = build(&g, p, ctx);
  if (!y) t_fail_at(file, line, "the layer failed: %s", nmt_errmsg());
  for (int k = 0; y && k < y->cols; k++) {
    if (y->v[(3 * B + 1) * y->cols + k] != y->v[(1 * B + 1) * y->cols + k] ||
        y->v[(3 * B + 2) * y->cols + k] != y->v[(2 * B + 2) * y->cols + k]) {
      t_fail_at(file, line, "column %d: a sentence past its end does not keep its last state", k);
      break;
    }
  }
  nn_graph_free(&g);
}

/* The finite-difference gradient checker behind T_NN_GRADCHECK. */
#include "nn/grad_check.h"
#include "base/err.h"
#include "nn/rng.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>

enum { PROJ_SEED = 99 };
static const double EPS = 5e-3, RTOL = 1e-2, ATOL = 1e-3;

void t_nn_params(nn_params *p, int n, const int (*shapes)[2], uint64_t seed) {
  *p = (nn_params){0};
  for (int i = 0; i < n; i++) {
    char name[16];
    snprintf(name, sizeof name, "x%d", i);
    nn_params_add(p, name, shapes[i][0], shapes[i][1]);
  }
  nn_params_alloc(p);
  nn_params_init(p, NN_INIT_UNIFORM, 1.0f, seed);
}

/* One forward (and backward when `grad`): returns L in double. */
static double run(nn_graph *g, nn_params *p, t_nn_build build, void *ctx, bool grad, bool *ok) {
  nn_graph_reset(g, true, 7);
  nn_tensor *y = build(g, p, ctx);
  if (!y || g->failed) {
    *ok = false;
    return 0;
  }
  size_t n = (size_t)y->rows * y->cols;
  double L = 0;
  for (size_t i = 0; i < n; i++) {
    float r = 2 * nn_rng_uniform(PROJ_SEED, 0, i) - 1;
    L += (double)r * y->v[i];
    if (grad) y->g[i] = r;
  }
  if (grad) nn_tape_replay(g); /* the projection is y's gradient */
  return L;
}

void t_nn_gradcheck_at(const char *file, int line, nn_params *p, t_nn_build build, void *ctx) {
  nn_graph g = {.seed = 1234};
  bool ok = true;
  nn_params_zero_grad(p);
  run(&g, p, build, ctx, true, &ok);
  if (!ok) {
    t_fail_at(file, line, "forward failed: %s", nmt_errmsg());
    nn_graph_free(&g);
    return;
  }
  float *analytic = malloc(p->n * sizeof *analytic);
  for (size_t i = 0; i < p->n; i++) analytic[i] = p->g[i];
  int bad = 0;
  double worst = 0;
  for (int v = 0; v < p->nviews; v++) {
    const nn_view *vw = &p->views[v];
    for (size_t k = 0; k < (size_t)vw->rows * vw->cols; k++) {
      size_t i = vw->off + k;
      float w0 = p->w[i];
      p->w[i] = (float)(w0 + EPS);
      double lp = run(&g, p, build, ctx, false, &ok);
      p->w[i] = (float)(w0 - EPS);
      double lm = run(&g, p, build, ctx, false, &ok);
      p->w[i] = w0;
      double num = (lp - lm) / (2 * EPS), a = analytic[i];
      double err = fabs(a - num), lim = ATOL + RTOL * fmax(fabs(a), fabs(num));
      if (err / lim > worst) worst = err / lim;
      if (err > lim && bad++ < 5)
        t_fail_at(file, line, "d/d %s[%zu]: analytic %.6g, numeric %.6g", vw->name, k, a, num);
    }
  }
  if (bad > 5) t_fail_at(file, line, "... %d gradients off in all (worst %.2f× the tolerance)", bad, worst);
  free(analytic);
  nn_graph_free(&g);
}

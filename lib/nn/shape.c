/* Moving data without arithmetic: concat/slice along features, stacking steps
 * into a sequence, and the embedding gather with its scatter-add backward. */
#include "nn/kernels.h"
#include "nn/ops.h"
#include <string.h>

void nn_copy_cols(float *dst, int ldd, const float *src, int lds, int R, int C, float beta) {
  for (int r = 0; r < R; r++) {
    float *d = dst + (size_t)r * ldd;
    const float *s = src + (size_t)r * lds;
    if (beta == 0) memcpy(d, s, (size_t)C * sizeof *d);
    else
      for (int c = 0; c < C; c++) d[c] = beta * d[c] + s[c];
  }
}

void nn_gather_fwd(float *y, const float *E, const int *ids, int N, int D) {
  for (int i = 0; i < N; i++) memcpy(y + (size_t)i * D, E + (size_t)ids[i] * D, (size_t)D * sizeof *y);
}

void nn_scatter_rows(float *y, const int *ids, const float *x, int N, int D) {
  for (int i = 0; i < N; i++) memcpy(y + (size_t)ids[i] * D, x + (size_t)i * D, (size_t)D * sizeof *y);
}

void nn_gather_bwd(float *dE, const int *ids, const float *dy, int N, int D) {
  for (int i = 0; i < N; i++) {
    float *d = dE + (size_t)ids[i] * D;
    const float *s = dy + (size_t)i * D;
    for (int k = 0; k < D; k++) d[k] += s[k];
  }
}

static void concat_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *a = e->in[0], *b = e->in[1], *y = e->out[0];
  if (a->g) be->copy_cols(a->g, a->cols, y->g, y->cols, y->rows, a->cols, 1);
  if (b->g) be->copy_cols(b->g, b->cols, y->g + a->cols, y->cols, y->rows, b->cols, 1);
}
static const nn_opdef concat_op = {"concat", concat_bw};

nn_tensor *nn_concat(nn_graph *g, nn_tensor *a, nn_tensor *b) {
  if (g->failed || !nn_require(g, a->rows == b->rows, "concat: %d rows and %d rows", a->rows, b->rows))
    return NULL;
  nn_tensor *y = nn_new(g, a->rows, a->cols + b->cols);
  if (!y) return NULL;
  g->be->copy_cols(y->v, y->cols, a->v, a->cols, a->rows, a->cols, 0);
  g->be->copy_cols(y->v + a->cols, y->cols, b->v, b->cols, b->rows, b->cols, 0);
  nn_entry *e = nn_record(g, &concat_op);
  if (e) *e = (nn_entry){.op = &concat_op, .in = {a, b}, .out = {y}};
  return y;
}

static void slice_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *x = e->in[0], *y = e->out[0];
  if (x->g) be->copy_cols(x->g + e->n[0], x->cols, y->g, y->cols, y->rows, y->cols, 1);
}
static const nn_opdef slice_op = {"slice", slice_bw};

nn_tensor *nn_slice(nn_graph *g, nn_tensor *x, int c0, int n) {
  if (g->failed || !nn_require(g, c0 >= 0 && n > 0 && c0 + n <= x->cols,
                               "slice: columns [%d, %d) of %d", c0, c0 + n, x->cols))
    return NULL;
  nn_tensor *y = nn_new(g, x->rows, n);
  if (!y) return NULL;
  g->be->copy_cols(y->v, n, x->v + c0, x->cols, x->rows, n, 0);
  nn_entry *e = nn_record(g, &slice_op);
  if (e) *e = (nn_entry){.op = &slice_op, .in = {x}, .out = {y}, .n = {c0}};
  return y;
}

/* The parts are kept in an arena array of tensor pointers (aux). */
static void stack_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor **xs = e->aux, *y = e->out[0];
  size_t part = (size_t)xs[0]->rows * y->cols;
  for (int i = 0; i < e->n[0]; i++)
    if (xs[i]->g) be->axpby_bwd(xs[i]->g, NULL, y->g + i * part, 0, part);
}
static const nn_opdef stack_op = {"stack", stack_bw};

nn_tensor *nn_stack(nn_graph *g, nn_tensor **xs, int n) {
  if (g->failed || !nn_require(g, n > 0, "stack: no tensors")) return NULL;
  for (int i = 1; i < n; i++)
    if (!nn_require(g, xs[i]->rows == xs[0]->rows && xs[i]->cols == xs[0]->cols,
                    "stack: part %d is (%d,%d), part 0 (%d,%d)", i, xs[i]->rows, xs[i]->cols,
                    xs[0]->rows, xs[0]->cols))
      return NULL;
  nn_tensor *y = nn_new(g, n * xs[0]->rows, xs[0]->cols);
  if (!y) return NULL;
  size_t part = (size_t)xs[0]->rows * xs[0]->cols;
  for (int i = 0; i < n; i++)
    if (g->be->copy(y->v + i * part, xs[i]->v, part * sizeof(float))) {
      g->failed = true;
      return NULL;
    }
  if (!g->train) return y;
  nn_tensor **keep = nn_alloc(g, n * sizeof *keep);
  nn_entry *e = keep ? nn_record(g, &stack_op) : NULL;
  if (!e) return g->failed ? NULL : y;
  memcpy(keep, xs, n * sizeof *keep);
  *e = (nn_entry){.op = &stack_op, .out = {y}, .aux = keep, .n = {n}};
  return y;
}

static void embed_bw(const nn_backend *be, const nn_entry *e) {
  if (e->in[0]->g) be->gather_bwd(e->in[0]->g, e->ids, e->out[0]->g, e->n[0], e->out[0]->cols);
}
static const nn_opdef embed_op = {"embed", embed_bw};

nn_tensor *nn_embed(nn_graph *g, nn_tensor *E, const int *ids, int n) {
  if (g->failed) return NULL;
  nn_tensor *y = nn_new(g, n, E->cols);
  if (!y) return NULL;
  g->be->gather_fwd(y->v, E->v, ids, n, E->cols);
  nn_entry *e = nn_record(g, &embed_op);
  if (e) *e = (nn_entry){.op = &embed_op, .in = {E}, .out = {y}, .ids = ids, .n = {n}};
  return y;
}

/* Inverted dropout with a Philox mask: element i of dropout op k in step s of
 * batch part q keeps iff uniform(seed, stream s·2³² + k, index q·2³⁴ + i) >= p,
 * i.e. the Philox counter words are (i/4, q, k, s): each a word of its own, so
 * no field spills into another, and part 0 is the single-worker mask. */
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/rng.h"

/* Part q's elements start at q·2³⁴: Philox block q·2³² + i/4, whose high word is q. */
static const uint64_t PART_STRIDE = 1ULL << 34;

void nn_dropout_fwd(float *y, float *keep, const float *x, size_t n, float p, uint64_t seed,
                    uint64_t stream, uint64_t offset) {
  nn_rng_fill_uniform(keep, n, 0, 1, seed, stream, offset);
  float k = 1.0f / (1.0f - p);
  for (size_t i = 0; i < n; i++) {
    keep[i] = keep[i] >= p ? k : 0.0f;
    y[i] = x[i] * keep[i];
  }
}

void nn_dropout_bwd(float *dx, const float *keep, const float *dy, size_t n) {
  for (size_t i = 0; i < n; i++) dx[i] += dy[i] * keep[i];
}

static void dropout_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *x = e->in[0];
  if (x->g) be->dropout_bwd(x->g, e->save[0], e->out[0]->g, (size_t)x->rows * x->cols);
}
static const nn_opdef dropout_op = {"dropout", dropout_bw};

nn_tensor *nn_dropout(nn_graph *g, nn_tensor *x, float p) {
  if (g->failed || !g->train || p <= 0) return g->failed ? NULL : x;
  if (!nn_require(g, p < 1, "dropout: rate %g is not below 1", p)) return NULL;
  size_t n = (size_t)x->rows * x->cols;
  if (!nn_require(g, n <= PART_STRIDE, "dropout: %zu elements, over the 2^34 of a part", n)) return NULL;
  nn_tensor *y = nn_new(g, x->rows, x->cols);
  float *keep = nn_floats(g, n, NULL);
  if (g->failed) return NULL;
  uint64_t stream = (g->step << 32) | g->ndropout++;
  g->be->dropout_fwd(y->v, keep, x->v, n, p, g->seed, stream, g->part * PART_STRIDE);
  nn_entry *e = nn_record(g, &dropout_op);
  if (e) *e = (nn_entry){.op = &dropout_op, .in = {x}, .out = {y}, .save = {keep}};
  return y;
}

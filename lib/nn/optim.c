/* The optimiser's loops over the parameter buffer (the optimiser's shard of it,
 * nn/optim.h): the gradient norm, clipping, the Adam and SGD steps and the
 * weights' moving average. */
#include "nn/optim.h"
#include "nn/backend.h"
#include "nn/kernels.h"
#include "nn/parallel.h"
#include "nn/vmath.h"
#include <math.h>
#include <stddef.h>
#include <string.h>

/* The buffer-wide loops run through the parameters' backend: on the CPU in
 * parts (nn_parallel), as they are memory-bound and each touches every
 * parameter; on a GPU in one part (one host thread drives it). */
typedef struct buffer_job buffer_job;
struct buffer_job {
  nn_params *p;
  const nn_backend *be;
  void (*range)(const buffer_job *j, size_t lo, size_t hi); /* the loop over [lo, hi) of the buffer */
  void (*update)(const buffer_job *j, size_t lo, size_t hi, float lr); /* adam, sgd: the update at rate lr */
  float k;               /* clip: gradient scale; adam, sgd: the recurrent views' rate scale; ema: decay */
  float b1, b2, lr, eps; /* adam (lr: sgd's too) */
};

static const nn_backend *backend_of(const nn_params *p) { return p->be ? p->be : &nn_cpu_backend; }

static void part_of(void *ctx, int part, int parts) {
  const buffer_job *j = ctx;
  size_t lo, hi;
  nn_part_range(j->p->hi - j->p->lo, part, parts, &lo, &hi);
  if (lo < hi) j->range(j, j->p->lo + lo, j->p->lo + hi);
}

/* Over the shard [p->lo, p->hi). */
static void run_parts(buffer_job *j) {
  if (j->p->be) part_of(j, 0, 1);
  else nn_parallel(j->p->hi - j->p->lo, part_of, j);
}

/* The CPU's sum of squares: fixed chunks, chunk after chunk, so it (and
 * clipping) is the same on any thread count; the threads share out one round
 * of chunks at a time. */
enum { NORM_ROUND = 256 }; /* chunks per round */

typedef struct {
  float *out;           /* the buffers' sum; NULL: x[0] alone is squared */
  const float *const *x;
  int k;                /* buffers */
  size_t n;
  double *sum;          /* each chunk's sum of squares */
} norm_job;

static void sumsq_chunks(void *ctx, int part, int parts) {
  norm_job *j = ctx;
  size_t chunks = nn_norm_chunks(j->n);
  for (size_t c = chunks * (size_t)part / (size_t)parts; c < chunks * (size_t)(part + 1) / (size_t)parts; c++) {
    size_t lo = c * NN_NORM_CHUNK, hi = lo + NN_NORM_CHUNK < j->n ? lo + NN_NORM_CHUNK : j->n;
    const float *y = j->x[0];
    if (j->out) {
      if (j->out != y) memcpy(j->out + lo, y + lo, (hi - lo) * sizeof(float));
      for (int b = 1; b < j->k; b++) {
        const float *x = j->x[b];
        for (size_t i = lo; i < hi; i++) j->out[i] += x[i];
      }
      y = j->out;
    }
    j->sum[c] = nn_vsumsq(y + lo, hi - lo);
  }
}

void nn_sumsq_chunks(const float *x, size_t n, double *sums) {
  norm_job j = {NULL, &x, 1, n, sums};
  nn_parallel(n, sumsq_chunks, &j);
}

void nn_sum_sumsq_chunks(float *out, const float *const *x, int k, size_t n, double *sums) {
  norm_job j = {out, x, k, n, sums};
  nn_parallel(n, sumsq_chunks, &j);
}

double nn_sumsq(const float *x, size_t n) {
  double sum[NORM_ROUND], s = 0;
  for (size_t at = 0; at < n; at += (size_t)NORM_ROUND * NN_NORM_CHUNK) {
    size_t len = n - at < (size_t)NORM_ROUND * NN_NORM_CHUNK ? n - at : (size_t)NORM_ROUND * NN_NORM_CHUNK;
    nn_sumsq_chunks(x + at, len, sum);
    for (size_t c = 0; c < nn_norm_chunks(len); c++) s += sum[c];
  }
  return s;
}

void nn_lerp(float *y, const float *x, float d, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] = (1 - d) * y[i] + d * x[i];
}

double nn_params_grad_norm(const nn_params *p) { return sqrt(backend_of(p)->sumsq(p->g, p->n)); }

static void scale_range(const buffer_job *j, size_t lo, size_t hi) {
  j->be->scale_fwd(j->p->g + lo, j->p->g + lo, j->k, hi - lo);
}

void nn_params_scale_grad(nn_params *p, double norm, double max_norm) {
  if (!(norm > max_norm)) return;
  buffer_job j = {.p = p, .be = backend_of(p), .range = scale_range, .k = (float)(max_norm / norm)};
  run_parts(&j);
}

double nn_params_clip(nn_params *p, double max_norm) {
  double norm = nn_params_grad_norm(p);
  nn_params_scale_grad(p, norm, max_norm);
  return norm;
}

/* The moments hold the shard alone: element i is at i - p->lo. */
static void adam_at(const buffer_job *j, size_t lo, size_t hi, float lr) {
  nn_params *p = j->p;
  size_t s = lo - p->lo;
  if (lo < hi) j->be->vadam(p->w + lo, p->m + s, p->v + s, p->g + lo, hi - lo, j->b1, j->b2, lr, j->eps);
}

/* w += (-lr)·g: the same bits as w - lr·g, negation being exact. */
static void sgd_at(const buffer_job *j, size_t lo, size_t hi, float lr) {
  nn_params *p = j->p;
  if (lo < hi) j->be->scale_bwd(p->w + lo, p->g + lo, -lr, hi - lo);
}

/* The update j->update; with a separate recurrent rate, view by view (views ascend in
 * the buffer; the padding between them has zero gradients and takes the common rate). */
static void rated_range(const buffer_job *j, size_t lo, size_t hi) {
  const nn_params *p = j->p;
  if (j->k == 1) {
    j->update(j, lo, hi, j->lr);
    return;
  }
  size_t at = lo;
  for (int i = 0; i < p->nviews && at < hi; i++) {
    const nn_view *v = &p->views[i];
    size_t a = v->off > at ? v->off : at, e = v->off + (size_t)v->rows * v->cols;
    if (e <= at) continue;
    e = e < hi ? e : hi;
    if (a >= e) continue;
    j->update(j, at, a, j->lr); /* padding before the view */
    j->update(j, a, e, v->recurrent ? j->lr * j->k : j->lr);
    at = e;
  }
  j->update(j, at, hi, j->lr);
}

void nn_adam_step(nn_params *p, const nn_adam *o) {
  p->step++;
  float b1 = o->beta1, b2 = o->beta2;
  /* Bias correction folded into the step size and epsilon. */
  double c1 = 1.0 - pow(b1, (double)p->step), c2 = 1.0 - pow(b2, (double)p->step);
  buffer_job j = {.p = p, .be = backend_of(p), .range = rated_range, .update = adam_at, .b1 = b1, .b2 = b2, .lr = (float)(o->lr * sqrt(c2) / c1),
                  .eps = (float)(o->eps * sqrt(c2)), .k = o->recurrent_scale > 0 ? o->recurrent_scale : 1};
  run_parts(&j);
}

void nn_sgd_step(nn_params *p, float lr, float recurrent_scale) {
  p->step++;
  buffer_job j = {.p = p, .be = backend_of(p), .range = rated_range, .update = sgd_at, .lr = lr,
                  .k = recurrent_scale > 0 ? recurrent_scale : 1};
  run_parts(&j);
}

float nn_ema_decay(double factor, long t) {
  double warm = 9.0 / ((double)t + 9.0);
  return (float)(factor > warm ? factor : warm);
}

static void ema_range(const buffer_job *j, size_t lo, size_t hi) {
  j->be->lerp(j->p->ema + (lo - j->p->lo), j->p->w + lo, j->k, hi - lo);
}

void nn_ema_step(nn_params *p, float decay) {
  buffer_job j = {.p = p, .be = backend_of(p), .range = ema_range, .k = decay};
  run_parts(&j);
}

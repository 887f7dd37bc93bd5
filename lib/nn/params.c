/* The one parameter buffer: views, init, gradient norm, clipping, Adam. */
#include "nn/params.h"
#include "base/err.h"
#include "nn/arena.h"
#include "nn/parallel.h"
#include "nn/rng.h"
#include "nn/vmath.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALIGN_FLOATS = 16 };

int nn_params_find(const nn_params *p, const char *name) {
  for (int i = 0; i < p->nviews; i++)
    if (!strcmp(p->views[i].name, name)) return i;
  return -1;
}

int nn_params_add(nn_params *p, const char *name, int rows, int cols) {
  if (rows <= 0 || cols <= 0 || strlen(name) >= sizeof p->views[0].name || p->w) {
    nmt_fail(NMT_EUSAGE, "parameter %s: bad shape (%d, %d) or added after alloc", name, rows, cols);
    return -1;
  }
  if (nn_params_find(p, name) >= 0) {
    nmt_fail(NMT_EUSAGE, "parameter %s declared twice", name);
    return -1;
  }
  if (p->nviews == p->cap_views) {
    int cap = p->cap_views ? 2 * p->cap_views : 32;
    nn_view *v = realloc(p->views, sizeof *v * (size_t)cap);
    if (!v) {
      nmt_fail(NMT_EIO, "out of memory");
      return -1;
    }
    p->views = v;
    p->cap_views = cap;
  }
  nn_view *v = &p->views[p->nviews];
  *v = (nn_view){.rows = rows, .cols = cols, .off = p->n}; /* not recurrent, not a lookup */
  snprintf(v->name, sizeof v->name, "%s", name);
  size_t size = (size_t)rows * (size_t)cols;
  p->n += (size + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
  return p->nviews++;
}

int nn_params_alloc(nn_params *p) {
  float **bufs[] = {&p->w, &p->g, &p->m, &p->v};
  for (int i = 0; i < 4; i++) {
    void *mem = nn_big_alloc((p->n ? p->n : 1) * sizeof(float));
    if (!mem) {
      nn_params_free(p);
      return nmt_fail(NMT_EIO, "out of memory: %zu parameters", p->n);
    }
    memset(mem, 0, p->n * sizeof(float));
    *bufs[i] = mem;
  }
  p->step = 0;
  return NMT_OK;
}

int nn_params_quantize(nn_params *p) {
  if (p->q) return NMT_OK;
  p->q = calloc((size_t)(p->nviews ? p->nviews : 1), sizeof *p->q);
  if (!p->q) return nmt_fail(NMT_EIO, "out of memory: int8 weights");
  for (int i = 0; i < p->nviews; i++) {
    const nn_view *v = &p->views[i];
    if (v->rows > 1 && v->cols > 1 && !v->lookup && nn_qmat_pack(&p->q[i], p->w + v->off, v->rows, v->cols, v->cols))
      return NMT_EIO;
  }
  return NMT_OK;
}

void nn_params_free(nn_params *p) {
  for (int i = 0; p->q && i < p->nviews; i++) nn_qmat_free(&p->q[i]);
  free(p->q);
  free(p->w);
  free(p->g);
  free(p->m);
  free(p->v);
  free(p->views);
  *p = (nn_params){0};
}

void nn_params_init(nn_params *p, enum nn_init how, float scale, uint64_t seed) {
  for (int i = 0; i < p->nviews; i++) {
    const nn_view *v = &p->views[i];
    float lim = scale;
    if (how == NN_INIT_XAVIER) lim = v->rows == 1 ? 0.0f : sqrtf(6.0f / (float)(v->rows + v->cols));
    nn_rng_fill_uniform(p->w + v->off, (size_t)v->rows * v->cols, -lim, lim, seed, 0, v->off);
  }
}

void nn_params_zero_grad(nn_params *p) { memset(p->g, 0, p->n * sizeof(float)); }

/* The buffer-wide loops run in parts (nn_parallel): they are memory-bound and
 * each touches every parameter. */
typedef struct {
  nn_params *p;
  float k;               /* clip: gradient scale; adam: the recurrent views' rate scale */
  float b1, b2, lr, eps; /* adam */
} buffer_job;

/* The norm sums squares over fixed chunks, chunk after chunk, so it (and
 * clipping) is the same on any thread count; the threads share out one round
 * of chunks at a time. */
enum { NORM_CHUNK = 1 << 16, NORM_ROUND = 256 }; /* floats per chunk; chunks per round */

typedef struct {
  const float *g;
  size_t n, first;         /* the buffer; the round's first chunk */
  int chunks;              /* in this round */
  double sum[NORM_ROUND];  /* each chunk's sum of squares */
} norm_job;

static void sumsq_chunks(void *ctx, int part, int parts) {
  norm_job *j = ctx;
  for (int c = j->chunks * part / parts; c < j->chunks * (part + 1) / parts; c++) {
    size_t lo = (j->first + (size_t)c) * NORM_CHUNK, hi = lo + NORM_CHUNK < j->n ? lo + NORM_CHUNK : j->n;
    double s = 0;
    for (size_t i = lo; i < hi; i++) s += (double)j->g[i] * j->g[i];
    j->sum[c] = s;
  }
}

double nn_params_grad_norm(const nn_params *p) {
  norm_job j = {.g = p->g, .n = p->n};
  size_t chunks = (p->n + NORM_CHUNK - 1) / NORM_CHUNK;
  double s = 0;
  for (; j.first < chunks; j.first += NORM_ROUND) {
    j.chunks = chunks - j.first < NORM_ROUND ? (int)(chunks - j.first) : NORM_ROUND;
    nn_parallel(p->n - j.first * NORM_CHUNK, sumsq_chunks, &j);
    for (int c = 0; c < j.chunks; c++) s += j.sum[c];
  }
  return sqrt(s);
}

static void scale_part(void *ctx, int part, int parts) {
  buffer_job *j = ctx;
  size_t lo, hi;
  nn_part_range(j->p->n, part, parts, &lo, &hi);
  for (size_t i = lo; i < hi; i++) j->p->g[i] *= j->k;
}

double nn_params_clip(nn_params *p, double max_norm) {
  double norm = nn_params_grad_norm(p);
  if (norm > max_norm) {
    buffer_job j = {.p = p, .k = (float)(max_norm / norm)};
    nn_parallel(p->n, scale_part, &j);
  }
  return norm;
}

void nn_params_mark_recurrent(nn_params *p, int i) {
  if (i >= 0 && i < p->nviews) p->views[i].recurrent = true;
}

void nn_params_mark_lookup(nn_params *p, int i) {
  if (i >= 0 && i < p->nviews) p->views[i].lookup = true;
}

static void adam_range(buffer_job *j, size_t lo, size_t hi, float lr) {
  nn_params *p = j->p;
  if (lo < hi) nn_vadam(p->w + lo, p->m + lo, p->v + lo, p->g + lo, hi - lo, j->b1, j->b2, lr, j->eps);
}

/* With a separate recurrent rate, view by view (views ascend in the buffer;
 * the padding between them has zero gradients and takes the common rate). */
static void adam_part(void *ctx, int part, int parts) {
  buffer_job *j = ctx;
  nn_params *p = j->p;
  size_t lo, hi;
  nn_part_range(p->n, part, parts, &lo, &hi);
  if (j->k == 1) {
    adam_range(j, lo, hi, j->lr);
    return;
  }
  size_t at = lo;
  for (int i = 0; i < p->nviews && at < hi; i++) {
    const nn_view *v = &p->views[i];
    size_t a = v->off > at ? v->off : at, e = v->off + (size_t)v->rows * v->cols;
    if (e <= at) continue;
    e = e < hi ? e : hi;
    if (a >= e) continue;
    adam_range(j, at, a, j->lr); /* padding before the view */
    adam_range(j, a, e, v->recurrent ? j->lr * j->k : j->lr);
    at = e;
  }
  adam_range(j, at, hi, j->lr);
}

void nn_adam_step(nn_params *p, const nn_adam *o) {
  p->step++;
  float b1 = o->beta1, b2 = o->beta2;
  /* Bias correction folded into the step size and epsilon. */
  double c1 = 1.0 - pow(b1, (double)p->step), c2 = 1.0 - pow(b2, (double)p->step);
  buffer_job j = {.p = p, .b1 = b1, .b2 = b2, .lr = (float)(o->lr * sqrt(c2) / c1),
                  .eps = (float)(o->eps * sqrt(c2)), .k = o->recurrent_scale > 0 ? o->recurrent_scale : 1};
  nn_parallel(p->n, adam_part, &j);
}

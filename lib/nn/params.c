/* The one parameter buffer: views, allocation, init (the optimiser: nn/optim.c). */
#include "nn/params.h"
#include "base/err.h"
#include "nn/arena.h"
#include "nn/backend.h"
#include "nn/kernels.h"
#include "nn/parallel.h"
#include "nn/pgemm.h"
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

/* The first `count` of w, g, m, v, zeroed. */
static int alloc_buffers(nn_params *p, int count) {
  float **bufs[] = {&p->w, &p->g, &p->m, &p->v};
  for (int i = 0; i < count; i++) {
    void *mem = nn_big_alloc((p->n ? p->n : 1) * sizeof(float));
    if (!mem) {
      nn_params_free(p);
      return nmt_fail(NMT_EIO, "out of memory: %zu parameters", p->n);
    }
    memset(mem, 0, p->n * sizeof(float));
    *bufs[i] = mem;
  }
  p->step = 0;
  p->lo = 0, p->hi = p->n;
  return NMT_OK;
}

int nn_params_alloc(nn_params *p) { return alloc_buffers(p, 4); }
int nn_params_alloc_weights(nn_params *p) { return alloc_buffers(p, 1); }

/* A weight matrix a product multiplies by: rows and cols > 1, not a lookup table. */
static bool is_matrix(const nn_view *v) { return v->rows > 1 && v->cols > 1 && !v->lookup; }

int nn_params_quantize(nn_params *p) {
  if (p->q) return NMT_OK;
  p->q = calloc((size_t)(p->nviews ? p->nviews : 1), sizeof *p->q);
  if (!p->q) return nmt_fail(NMT_EIO, "out of memory: int8 weights");
  for (int i = 0; i < p->nviews; i++) {
    const nn_view *v = &p->views[i];
    if (is_matrix(v) && nn_qmat_pack(&p->q[i], p->w + v->off, v->rows, v->cols, v->cols))
      return NMT_EIO;
  }
  return NMT_OK;
}

int nn_params_pack(nn_params *p) {
  if (p->pk || !nn_pgemm_panels()) return NMT_OK;
  p->pk = calloc((size_t)(p->nviews ? p->nviews : 1), sizeof *p->pk);
  if (!p->pk) return nmt_fail(NMT_EIO, "out of memory: packed weights");
  for (int i = 0; i < p->nviews; i++) {
    const nn_view *v = &p->views[i];
    if (!is_matrix(v)) continue;
    if (!(p->pk[i] = nn_big_alloc(sizeof(float) * nn_packed_floats(v->rows, v->cols))))
      return nmt_fail(NMT_EIO, "out of memory: packed weights");
    nn_pack_weight(p->pk[i], p->w + v->off, v->rows, v->cols, false);
  }
  return NMT_OK;
}

int nn_params_keep_ema(nn_params *p, bool on) {
  if (!on) {
    free(p->ema);
    p->ema = NULL;
    return NMT_OK;
  }
  if (p->ema) return NMT_OK;
  size_t n = p->hi - p->lo;
  p->ema = nn_big_alloc((n ? n : 1) * sizeof(float));
  if (!p->ema) return nmt_fail(NMT_EIO, "out of memory: %zu averaged parameters", n);
  memcpy(p->ema, p->w + p->lo, n * sizeof(float));
  return NMT_OK;
}

int nn_params_shard(nn_params *p, size_t lo, size_t hi) {
  float **bufs[] = {&p->m, &p->v, &p->ema};
  for (int i = 0; i < 3; i++) {
    if (!*bufs[i]) continue;
    float *mem = nn_big_alloc((hi > lo ? hi - lo : 1) * sizeof(float));
    if (!mem) return nmt_fail(NMT_EIO, "out of memory: a shard of %zu parameters", hi - lo);
    if (hi > lo) memcpy(mem, *bufs[i] + (lo - p->lo), (hi - lo) * sizeof(float));
    free(*bufs[i]);
    *bufs[i] = mem;
  }
  p->lo = lo, p->hi = hi;
  return NMT_OK;
}

void nn_params_swap_ema(nn_params *p) {
  if (!p->ema) return;
  float *w = p->w;
  p->w = p->ema, p->ema = w;
}

void nn_params_free(nn_params *p) {
  for (int i = 0; p->q && i < p->nviews; i++) nn_qmat_free(&p->q[i]);
  free(p->q);
  for (int i = 0; p->pk && i < p->nviews; i++) free(p->pk[i]);
  free(p->pk);
  void (*release)(void *) = p->be ? p->be->free : free;
  release(p->ema);
  release(p->w);
  release(p->g);
  release(p->m);
  release(p->v);
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

void nn_params_zero_grad(nn_params *p) {
  if (p->be) p->be->zero(p->g, p->n * sizeof(float));
  else memset(p->g, 0, p->n * sizeof(float));
}

void nn_params_mark_recurrent(nn_params *p, int i) {
  if (i >= 0 && i < p->nviews) p->views[i].recurrent = true;
}

void nn_params_mark_lookup(nn_params *p, int i) {
  if (i >= 0 && i < p->nviews) p->views[i].lookup = true;
}

/* Tensors in the arena, the tape, and its reverse replay. */
#include "nn/tape.h"
#include "base/err.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nn_graph_reset(nn_graph *g, bool train, uint64_t step) {
  if (!g->be) g->be = &nn_cpu_backend;
  g->arena.be = g->be;
  g->ntape = 0;
  g->train = train;
  g->step = step;
  g->ndropout = 0;
  g->failed = false;
  if (nn_arena_reset(&g->arena) || nn_arena_reset(&g->host)) g->failed = true;
  return g->failed ? NMT_EIO : NMT_OK;
}

void nn_graph_free(nn_graph *g) {
  nn_arena_free(&g->arena);
  nn_arena_free(&g->host);
  free(g->tape);
  *g = (nn_graph){0};
}

bool nn_require(nn_graph *g, bool cond, const char *fmt, ...) {
  if (cond) return true;
  if (!g->failed) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nmt_fail(NMT_EUSAGE, "%s", msg);
  }
  g->failed = true;
  return false;
}

static void *arena_alloc(nn_graph *g, nn_arena *a, size_t bytes) {
  if (g->failed) return NULL;
  void *p = nn_arena_alloc(a, bytes);
  if (!p) g->failed = true;
  return p;
}

void *nn_alloc(nn_graph *g, size_t bytes) { return arena_alloc(g, &g->host, bytes); }

/* A backend memory call's status: a failure fails the graph. */
static bool ok(nn_graph *g, int status) {
  if (status != NMT_OK) g->failed = true;
  return status == NMT_OK;
}

static void *backend_array(nn_graph *g, size_t bytes, const void *data) {
  void *p = arena_alloc(g, &g->arena, bytes);
  return p && (!data || ok(g, g->be->to_device(p, data, bytes))) ? p : NULL;
}
float *nn_floats(nn_graph *g, size_t n, const float *data) { return backend_array(g, n * sizeof(float), data); }
int *nn_ints(nn_graph *g, size_t n, const int *data) { return backend_array(g, n * sizeof(int), data); }

static nn_tensor *tensor(nn_graph *g, float *v, float *grad, int rows, int cols) {
  nn_tensor *t = nn_alloc(g, sizeof *t);
  if (!t) return NULL;
  *t = (nn_tensor){v, grad, rows, cols, NULL};
  return t;
}

nn_tensor *nn_new(nn_graph *g, int rows, int cols) {
  if (!nn_require(g, rows > 0 && cols > 0, "tensor: bad shape (%d, %d)", rows, cols)) return NULL;
  size_t n = (size_t)rows * (size_t)cols;
  float *v = nn_floats(g, n, NULL), *grad = NULL;
  if (g->train && v) {
    grad = nn_floats(g, n, NULL);
    if (grad) ok(g, g->be->zero(grad, n * sizeof *grad));
  }
  return g->failed ? NULL : tensor(g, v, grad, rows, cols);
}

nn_tensor *nn_zeros(nn_graph *g, int rows, int cols) {
  nn_tensor *t = nn_new(g, rows, cols);
  return t && ok(g, g->be->zero(t->v, sizeof(float) * (size_t)rows * cols)) ? t : NULL;
}

nn_tensor *nn_input(nn_graph *g, int rows, int cols, const float *data) {
  nn_tensor *t = nn_new(g, rows, cols);
  return t && ok(g, g->be->to_device(t->v, data, (size_t)rows * cols * sizeof(float))) ? t : NULL;
}

bool nn_to_host(nn_graph *g, const nn_tensor *t, float *dst) {
  return !g->failed && ok(g, g->be->to_host(dst, t->v, (size_t)t->rows * t->cols * sizeof(float)));
}

nn_tensor *nn_rows(nn_graph *g, nn_tensor *x, int r0, int n) {
  if (g->failed || !nn_require(g, r0 >= 0 && n > 0 && r0 + n <= x->rows,
                               "rows: [%d, %d) out of %d rows", r0, r0 + n, x->rows))
    return NULL;
  size_t off = (size_t)r0 * x->cols;
  return tensor(g, x->v + off, x->g ? x->g + off : NULL, n, x->cols);
}

nn_tensor *nn_param(nn_graph *g, nn_params *p, int index) {
  if (g->failed || !nn_require(g, index >= 0 && index < p->nviews, "param: no view %d", index))
    return NULL;
  const nn_view *v = &p->views[index];
  nn_tensor *t = tensor(g, p->w + v->off, g->train ? p->g + v->off : NULL, v->rows, v->cols);
  if (t && !g->train && p->q && p->q[index].w) t->q = &p->q[index];
  if (t && !g->train && p->pk) t->pk = p->pk[index];
  return t;
}

nn_entry *nn_record(nn_graph *g, const nn_opdef *op) {
  if (!g->train || g->failed) return NULL;
  if (g->ntape == g->cap_tape) {
    int cap = g->cap_tape ? 2 * g->cap_tape : 256;
    nn_entry *t = realloc(g->tape, sizeof *t * (size_t)cap);
    if (!t) {
      nmt_fail(NMT_EIO, "out of memory: tape of %d entries", cap);
      g->failed = true;
      return NULL;
    }
    g->tape = t;
    g->cap_tape = cap;
  }
  nn_entry *e = &g->tape[g->ntape++];
  memset(e, 0, sizeof *e);
  e->op = op;
  return e;
}

int nn_tape_backward(nn_graph *g, nn_tensor *loss, float seed) {
  if (g->failed || !loss) return nmt_errcode() ? nmt_errcode() : NMT_EUSAGE;
  if (!nn_require(g, g->train && loss->rows == 1 && loss->cols == 1,
                  "backward: needs a training graph and a (1,1) loss"))
    return NMT_EUSAGE;
  if (!ok(g, g->be->to_device(loss->g, &seed, sizeof seed))) return nmt_errcode();
  return nn_tape_replay(g);
}

int nn_tape_replay(nn_graph *g) {
  if (g->failed) return nmt_errcode() ? nmt_errcode() : NMT_EUSAGE;
  for (int i = g->ntape - 1; i >= 0; i--) g->tape[i].op->backward(g->be, &g->tape[i]);
  return NMT_OK;
}

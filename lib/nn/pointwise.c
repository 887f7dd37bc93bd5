/* Elementwise kernels and ops: sigmoid, tanh, add, sub, mul, scale, bias. */
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/vmath.h"
#include "nn/vectorise_any_length.h"

void nn_sigmoid_fwd(float *y, const float *x, size_t n) { nn_vsigmoid(y, x, n); }
void nn_sigmoid_bwd(float *dx, const float *y, const float *dy, size_t n) {
  for (size_t i = 0; i < n; i++) dx[i] += dy[i] * y[i] * (1 - y[i]);
}
void nn_tanh_fwd(float *y, const float *x, size_t n) { nn_vtanh(y, x, n); }
void nn_tanh_bwd(float *dx, const float *y, const float *dy, size_t n) {
  for (size_t i = 0; i < n; i++) dx[i] += dy[i] * (1 - y[i] * y[i]);
}
void nn_axpby_fwd(float *y, const float *a, const float *b, float sb, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] = a[i] + sb * b[i];
}
void nn_axpby_bwd(float *da, float *db, const float *dy, float sb, size_t n) {
  if (da)
    for (size_t i = 0; i < n; i++) da[i] += dy[i];
  if (db)
    for (size_t i = 0; i < n; i++) db[i] += sb * dy[i];
}
void nn_mul_fwd(float *y, const float *a, const float *b, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] = a[i] * b[i];
}
void nn_mul_bwd(float *da, float *db, const float *a, const float *b, const float *dy, size_t n) {
  if (da)
    for (size_t i = 0; i < n; i++) da[i] += dy[i] * b[i];
  if (db)
    for (size_t i = 0; i < n; i++) db[i] += dy[i] * a[i];
}
void nn_scale_fwd(float *y, const float *x, float s, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] = s * x[i];
}
void nn_scale_bwd(float *dx, const float *dy, float s, size_t n) {
  for (size_t i = 0; i < n; i++) dx[i] += s * dy[i];
}
void nn_shift_fwd(float *y, const float *x, float s, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] = x[i] + s;
}
void nn_bias_fwd(float *y, const float *x, const float *bias, int R, int C) {
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) y[(size_t)r * C + c] = x[(size_t)r * C + c] + bias[c];
}
void nn_bias_bwd(float *dx, float *dbias, const float *dy, int R, int C) {
  if (dx) nn_axpby_bwd(dx, NULL, dy, 0, (size_t)R * C);
  if (dbias)
    for (int r = 0; r < R; r++)
      for (int c = 0; c < C; c++) dbias[c] += dy[(size_t)r * C + c];
}

static size_t numel(const nn_tensor *t) { return (size_t)t->rows * t->cols; }

/* Unary ops: the output is what backward needs. */
static void sigmoid_bw(const nn_backend *be, const nn_entry *e) {
  if (e->in[0]->g) be->sigmoid_bwd(e->in[0]->g, e->out[0]->v, e->out[0]->g, numel(e->out[0]));
}
static void tanh_bw(const nn_backend *be, const nn_entry *e) {
  if (e->in[0]->g) be->tanh_bwd(e->in[0]->g, e->out[0]->v, e->out[0]->g, numel(e->out[0]));
}
static void scale_bw(const nn_backend *be, const nn_entry *e) {
  if (e->in[0]->g) be->scale_bwd(e->in[0]->g, e->out[0]->g, e->f[0], numel(e->out[0]));
}
static void shift_bw(const nn_backend *be, const nn_entry *e) {
  if (e->in[0]->g) be->axpby_bwd(e->in[0]->g, NULL, e->out[0]->g, 0, numel(e->out[0]));
}
static const nn_opdef sigmoid_op = {"sigmoid", sigmoid_bw}, tanh_op = {"tanh", tanh_bw},
                      scale_op = {"scale", scale_bw}, shift_op = {"shift", shift_bw};

static nn_tensor *unary(nn_graph *g, const nn_opdef *op, nn_tensor *x, float s) {
  if (g->failed) return NULL;
  nn_tensor *y = nn_new(g, x->rows, x->cols);
  if (!y) return NULL;
  if (op == &sigmoid_op) g->be->sigmoid_fwd(y->v, x->v, numel(x));
  else if (op == &tanh_op) g->be->tanh_fwd(y->v, x->v, numel(x));
  else if (op == &shift_op) g->be->shift_fwd(y->v, x->v, s, numel(x));
  else g->be->scale_fwd(y->v, x->v, s, numel(x));
  nn_entry *e = nn_record(g, op);
  if (e) *e = (nn_entry){.op = op, .in = {x}, .out = {y}, .f = {s}};
  return y;
}
nn_tensor *nn_sigmoid(nn_graph *g, nn_tensor *x) { return unary(g, &sigmoid_op, x, 0); }
nn_tensor *nn_tanh(nn_graph *g, nn_tensor *x) { return unary(g, &tanh_op, x, 0); }
nn_tensor *nn_scale(nn_graph *g, nn_tensor *x, float s) { return unary(g, &scale_op, x, s); }
nn_tensor *nn_shift(nn_graph *g, nn_tensor *x, float s) { return unary(g, &shift_op, x, s); }

/* Binary ops on equal shapes; f[0] is the sign of b for add/sub. */
static void axpby_bw(const nn_backend *be, const nn_entry *e) {
  be->axpby_bwd(e->in[0]->g, e->in[1]->g, e->out[0]->g, e->f[0], numel(e->out[0]));
}
static void mul_bw(const nn_backend *be, const nn_entry *e) {
  be->mul_bwd(e->in[0]->g, e->in[1]->g, e->in[0]->v, e->in[1]->v, e->out[0]->g, numel(e->out[0]));
}
static const nn_opdef add_op = {"add", axpby_bw}, sub_op = {"sub", axpby_bw},
                      mul_op = {"mul", mul_bw};

static nn_tensor *binary(nn_graph *g, const nn_opdef *op, nn_tensor *a, nn_tensor *b) {
  if (g->failed) return NULL;
  if (!nn_require(g, a->rows == b->rows && a->cols == b->cols, "%s: shapes (%d,%d) and (%d,%d)",
                  op->name, a->rows, a->cols, b->rows, b->cols))
    return NULL;
  nn_tensor *y = nn_new(g, a->rows, a->cols);
  if (!y) return NULL;
  float sb = op == &sub_op ? -1.0f : 1.0f;
  if (op == &mul_op) g->be->mul_fwd(y->v, a->v, b->v, numel(a));
  else g->be->axpby_fwd(y->v, a->v, b->v, sb, numel(a));
  nn_entry *e = nn_record(g, op);
  if (e) *e = (nn_entry){.op = op, .in = {a, b}, .out = {y}, .f = {sb}};
  return y;
}
nn_tensor *nn_add(nn_graph *g, nn_tensor *a, nn_tensor *b) { return binary(g, &add_op, a, b); }
nn_tensor *nn_sub(nn_graph *g, nn_tensor *a, nn_tensor *b) { return binary(g, &sub_op, a, b); }
nn_tensor *nn_mul(nn_graph *g, nn_tensor *a, nn_tensor *b) { return binary(g, &mul_op, a, b); }

static void bias_bw(const nn_backend *be, const nn_entry *e) {
  be->bias_bwd(e->in[0]->g, e->in[1]->g, e->out[0]->g, e->out[0]->rows, e->out[0]->cols);
}
static const nn_opdef bias_op = {"add_bias", bias_bw};

nn_tensor *nn_add_bias(nn_graph *g, nn_tensor *x, nn_tensor *bias) {
  if (g->failed) return NULL;
  if (!nn_require(g, bias->rows == 1 && bias->cols == x->cols, "add_bias: bias (%d,%d) for x (%d,%d)",
                  bias->rows, bias->cols, x->rows, x->cols))
    return NULL;
  nn_tensor *y = nn_new(g, x->rows, x->cols);
  if (!y) return NULL;
  g->be->bias_fwd(y->v, x->v, bias->v, x->rows, x->cols);
  nn_entry *e = nn_record(g, &bias_op);
  if (e) *e = (nn_entry){.op = &bias_op, .in = {x, bias}, .out = {y}};
  return y;
}

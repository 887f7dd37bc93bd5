/* The fused log-softmax + label-smoothed negative log-likelihood over the
 * output vocabulary (forward, backward and the tape op). */
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/parallel.h"
#include "nn/vmath.h"
#include <math.h>
#include "nn/vectorise_any_length.h"

/* The cross-entropy's rows run in parts (nn_parallel): V exps per row. */
typedef struct {
  float *prob, *dlogits;
  const float *logits;
  const int *targets;
  int R, V, pad;
  float ls, dloss;
  double loss[8];
  long n[8];
} xent_job;

static void xent_fwd_part(void *ctx, int part, int parts) {
  xent_job *j = ctx;
  int V = j->V, r0 = (int)((long)j->R * part / parts), r1 = (int)((long)j->R * (part + 1) / parts);
  double loss = 0;
  long n = 0;
  for (int r = r0; r < r1; r++) {
    if (j->targets[r] == j->pad) continue;
    const float *x = j->logits + (size_t)r * V;
    float *p = j->prob + (size_t)r * V, mx = nn_vmax(x, (size_t)V);
    double s = nn_vexp_sum(p, x, mx, (size_t)V), sum_x = 0;
    for (int v = 0; j->ls > 0 && v < V; v++) sum_x += x[v];
    double lse = mx + log(s);
    float inv = (float)(1 / s);
    for (int v = 0; v < V; v++) p[v] *= inv;
    /* -log p_y = lse - x_y;  mean_v(-log p_v) = lse - mean(x). */
    loss += (1 - j->ls) * (lse - x[j->targets[r]]) + j->ls * (lse - sum_x / V);
    n++;
  }
  j->loss[part] = loss;
  j->n[part] = n;
}

double nn_xent_fwd(float *prob, const float *logits, const int *targets, int R, int V, int pad,
                   float ls, long *ntokens) {
  xent_job j = {.prob = prob, .logits = logits, .targets = targets, .R = R, .V = V, .pad = pad,
               .ls = ls};
  nn_parallel((size_t)R * V, xent_fwd_part, &j);
  double loss = 0;
  *ntokens = 0;
  for (int i = 0; i < 8; i++) loss += j.loss[i], *ntokens += j.n[i]; /* parts not run are 0 */
  return loss;
}

static void xent_bwd_part(void *ctx, int part, int parts) {
  xent_job *j = ctx;
  int V = j->V, r0 = (int)((long)j->R * part / parts), r1 = (int)((long)j->R * (part + 1) / parts);
  for (int r = r0; r < r1; r++) {
    if (j->targets[r] == j->pad) continue;
    const float *p = j->prob + (size_t)r * V;
    float *d = j->dlogits + (size_t)r * V, off = j->ls / V, k = j->dloss;
    for (int v = 0; v < V; v++) d[v] += k * (p[v] - off);
    d[j->targets[r]] -= k * (1 - j->ls);
  }
}

void nn_xent_bwd(float *dlogits, const float *prob, const int *targets, int R, int V, int pad,
                 float ls, float dloss) {
  xent_job j = {.prob = (float *)prob, .dlogits = dlogits, .targets = targets, .R = R, .V = V,
                .pad = pad, .ls = ls, .dloss = dloss};
  nn_parallel((size_t)R * V, xent_bwd_part, &j);
}

/* The kernel takes the loss's gradient as a scalar: one float comes to the host
 * (0 when the copy fails: the backend has recorded the error). */
static void xent_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *x = e->in[0];
  float dloss = 0;
  if (x->g && be->to_host(&dloss, e->out[0]->g, sizeof dloss) == 0)
    be->xent_bwd(x->g, e->save[0], e->ids, x->rows, x->cols, e->n[0], e->f[0], dloss);
}
static const nn_opdef xent_op = {"xent", xent_bw};

nn_tensor *nn_xent(nn_graph *g, nn_tensor *logits, const int *targets, int pad, float ls,
                   long *ntokens) {
  if (g->failed) return NULL;
  nn_tensor *loss = nn_new(g, 1, 1);
  float *prob = nn_floats(g, (size_t)logits->rows * logits->cols, NULL);
  if (g->failed) return NULL;
  float value = (float)g->be->xent_fwd(prob, logits->v, targets, logits->rows, logits->cols, pad, ls, ntokens);
  if (g->be->to_device(loss->v, &value, sizeof value)) {
    g->failed = true;
    return NULL;
  }
  nn_entry *e = nn_record(g, &xent_op);
  if (e)
    *e = (nn_entry){.op = &xent_op, .in = {logits}, .out = {loss}, .save = {prob}, .ids = targets,
                    .n = {pad}, .f = {ls}};
  return loss;
}

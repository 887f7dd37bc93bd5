/* Attention kernels and ops: dot and MLP scores, context, local-p window.
 * Sentence b of a time-major memory is a (S,F) matrix at row b with leading
 * dimension B*F, so each kernel is a GEMM batched over sentences. */
#include "nn/cells/attn.h"
#include "nn/kernels.h"
#include "nn/vmath.h"
#include <math.h>

void nn_attn_dot_fwd(float *score, const float *q, const float *K, int B, int S, int F) {
  /* score_b (S,1) = K_b (S,F) · q_b (F,1) */
  nn_gemm_batched(B, false, false, S, 1, F, 1, K, B * F, F, q, 1, F, 0, score, 1, S);
}

void nn_attn_dot_bwd(float *dq, float *dK, const float *dscore, const float *q, const float *K,
                     int B, int S, int F) {
  if (dq) /* dq_b (1,F) += dscore_b (1,S) · K_b */
    nn_gemm_batched(B, false, false, 1, F, S, 1, dscore, S, S, K, B * F, F, 1, dq, F, F);
  if (dK) /* dK_b (S,F) += dscore_bᵀ (S,1) · q_b (1,F) */
    nn_gemm_batched(B, true, false, S, F, 1, 1, dscore, S, S, q, F, F, 1, dK, B * F, F);
}

void nn_attn_mlp_fwd(float *score, float *t, const float *q, const float *K, const float *v,
                     int B, int S, int A) {
  for (int b = 0; b < B; b++)
    for (int s = 0; s < S; s++) {
      const float *qb = q + (size_t)b * A, *k = K + ((size_t)s * B + b) * A;
      float *tt = t + ((size_t)b * S + s) * A, acc = 0;
      for (int a = 0; a < A; a++) tt[a] = qb[a] + k[a];
      nn_vtanh(tt, tt, (size_t)A); /* libm's tanhf was ~8% of an RNNSearch training step */
      for (int a = 0; a < A; a++) acc += v[a] * tt[a];
      score[(size_t)b * S + s] = acc;
    }
}

void nn_attn_mlp_bwd(float *dq, float *dK, float *dv, const float *dscore, const float *t,
                     const float *v, int B, int S, int A) {
  for (int b = 0; b < B; b++)
    for (int s = 0; s < S; s++) {
      float ds = dscore[(size_t)b * S + s];
      const float *tt = t + ((size_t)b * S + s) * A;
      for (int a = 0; a < A; a++) {
        float dz = ds * v[a] * (1 - tt[a] * tt[a]);
        if (dq) dq[(size_t)b * A + a] += dz;
        if (dK) dK[((size_t)s * B + b) * A + a] += dz;
        if (dv) dv[a] += ds * tt[a];
      }
    }
}

void nn_attn_context_fwd(float *ctx, const float *a, const float *V, int B, int S, int F) {
  /* ctx_b (1,F) = a_b (1,S) · V_b (S,F) */
  nn_gemm_batched(B, false, false, 1, F, S, 1, a, S, S, V, B * F, F, 0, ctx, F, F);
}

void nn_attn_context_bwd(float *da, float *dV, const float *dctx, const float *a, const float *V,
                         int B, int S, int F) {
  if (da) /* da_b (S,1) += V_b (S,F) · dctx_b (F,1) */
    nn_gemm_batched(B, false, false, S, 1, F, 1, V, B * F, F, dctx, 1, F, 1, da, 1, S);
  if (dV) /* dV_b (S,F) += a_bᵀ (S,1) · dctx_b (1,F) */
    nn_gemm_batched(B, true, false, S, F, 1, 1, a, S, S, dctx, F, F, 1, dV, B * F, F);
}

/* g[i] = exp(-(s - p)²/2σ²) for positions s = s0 + i, i < n, by the vector exp. */
static void gauss_at(float *g, int s0, int n, float p, float var) {
  for (int i = 0; i < n; i++) {
    float d = (float)(s0 + i) - p;
    g[i] = -d * d / (2 * var);
  }
  nn_vexp_sum(g, g, 0.0f, (size_t)n);
}

void nn_attn_local_fwd(float *w, const float *a, const float *sig, const int *len, int B, int S,
                       float D) {
  float var = (D / 2) * (D / 2);
  for (int b = 0; b < B; b++) {
    float p = len[b] * sig[b], *wb = w + (size_t)b * S;
    const float *ab = a + (size_t)b * S;
    gauss_at(wb, 0, S, p, var);
    for (int s = 0; s < S; s++) wb[s] = fabsf(s - p) <= D ? ab[s] * wb[s] : 0.0f;
  }
}

/* dw/da = gauss; dw/dp = a·gauss·(s-p)/σ²; dp/dsig = len. */
void nn_attn_local_bwd(float *da, float *dsig, const float *dw, const float *a, const float *sig,
                       const int *len, int B, int S, float D) {
  enum { CHUNK = 64 }; /* the gaussians of CHUNK positions at a time, on the stack */
  float var = (D / 2) * (D / 2), gauss[CHUNK];
  for (int b = 0; b < B; b++) {
    float p = len[b] * sig[b], dp = 0;
    for (int s0 = 0; s0 < S; s0 += CHUNK) {
      int n = S - s0 < CHUNK ? S - s0 : CHUNK;
      gauss_at(gauss, s0, n, p, var);
      for (int i = 0; i < n; i++) {
        float d = (float)(s0 + i) - p;
        if (fabsf(d) > D) continue;
        size_t at = (size_t)b * S + s0 + i;
        if (da) da[at] += dw[at] * gauss[i];
        dp += dw[at] * a[at] * gauss[i] * d / var;
      }
    }
    if (dsig) dsig[b] += dp * len[b];
  }
}

static bool memory_fits(nn_graph *g, const char *op, nn_tensor *x, nn_tensor *mem) {
  return nn_require(g, mem->rows % x->rows == 0, "%s: memory of %d rows for batch %d", op,
                    mem->rows, x->rows);
}

static void dot_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *q = e->in[0], *K = e->in[1], *y = e->out[0];
  be->attn_dot_bwd(q->g, K->g, y->g, q->v, K->v, q->rows, y->cols, q->cols);
}
static const nn_opdef dot_op = {"attn_dot", dot_bw};

nn_tensor *nn_attn_dot(nn_graph *g, nn_tensor *q, nn_tensor *K) {
  if (g->failed || !memory_fits(g, "attn_dot", q, K) ||
      !nn_require(g, q->cols == K->cols, "attn_dot: query %d wide, keys %d", q->cols, K->cols))
    return NULL;
  int B = q->rows, S = K->rows / B;
  nn_tensor *y = nn_new(g, B, S);
  if (!y) return NULL;
  g->be->attn_dot_fwd(y->v, q->v, K->v, B, S, q->cols);
  nn_entry *e = nn_record(g, &dot_op);
  if (e) *e = (nn_entry){.op = &dot_op, .in = {q, K}, .out = {y}};
  return y;
}

static void mlp_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *q = e->in[0], *K = e->in[1], *v = e->in[2], *y = e->out[0];
  be->attn_mlp_bwd(q->g, K->g, v->g, y->g, e->save[0], v->v, q->rows, y->cols, q->cols);
}
static const nn_opdef mlp_op = {"attn_mlp", mlp_bw};

nn_tensor *nn_attn_mlp(nn_graph *g, nn_tensor *q, nn_tensor *K, nn_tensor *v) {
  if (g->failed || !memory_fits(g, "attn_mlp", q, K) ||
      !nn_require(g, q->cols == K->cols && v->rows == 1 && v->cols == q->cols,
                  "attn_mlp: query %d, keys %d, v (%d,%d)", q->cols, K->cols, v->rows, v->cols))
    return NULL;
  int B = q->rows, S = K->rows / B, A = q->cols;
  nn_tensor *y = nn_new(g, B, S);
  float *t = nn_floats(g, (size_t)B * S * A, NULL);
  if (g->failed) return NULL;
  g->be->attn_mlp_fwd(y->v, t, q->v, K->v, v->v, B, S, A);
  nn_entry *e = nn_record(g, &mlp_op);
  if (e) *e = (nn_entry){.op = &mlp_op, .in = {q, K, v}, .out = {y}, .save = {t}};
  return y;
}

static void context_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *a = e->in[0], *V = e->in[1], *y = e->out[0];
  be->attn_context_bwd(a->g, V->g, y->g, a->v, V->v, a->rows, a->cols, V->cols);
}
static const nn_opdef context_op = {"attn_context", context_bw};

nn_tensor *nn_attn_context(nn_graph *g, nn_tensor *a, nn_tensor *V) {
  if (g->failed || !nn_require(g, V->rows == a->rows * a->cols,
                               "attn_context: weights (%d,%d) for a memory of %d rows", a->rows,
                               a->cols, V->rows))
    return NULL;
  nn_tensor *y = nn_new(g, a->rows, V->cols);
  if (!y) return NULL;
  g->be->attn_context_fwd(y->v, a->v, V->v, a->rows, a->cols, V->cols);
  nn_entry *e = nn_record(g, &context_op);
  if (e) *e = (nn_entry){.op = &context_op, .in = {a, V}, .out = {y}};
  return y;
}

static void local_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *a = e->in[0], *sig = e->in[1], *y = e->out[0];
  be->attn_local_bwd(a->g, sig->g, y->g, a->v, sig->v, e->ids, a->rows, a->cols, e->f[0]);
}
static const nn_opdef local_op = {"attn_local", local_bw};

nn_tensor *nn_attn_local(nn_graph *g, nn_tensor *a, nn_tensor *sig, const int *len, float D) {
  if (g->failed || !nn_require(g, sig->rows == a->rows && sig->cols == 1 && D > 0,
                               "attn_local: sig (%d,%d) for weights (%d,%d), D %g", sig->rows,
                               sig->cols, a->rows, a->cols, D))
    return NULL;
  nn_tensor *y = nn_new(g, a->rows, a->cols);
  if (!y) return NULL;
  g->be->attn_local_fwd(y->v, a->v, sig->v, len, a->rows, a->cols, D);
  nn_entry *e = nn_record(g, &local_op);
  if (e) *e = (nn_entry){.op = &local_op, .in = {a, sig}, .out = {y}, .ids = len, .f = {D}};
  return y;
}

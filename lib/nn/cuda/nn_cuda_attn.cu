// Attention kernels (lib/nn/cells/attn.c) over a time-major memory (S*B, F): row
// s*B+b is position s of sentence b, so sentence b is a (S,F) matrix with
// leading dim B*F. Dot scores and the context are batched GEMMs over sentences.
#include "nn/cuda/nn_cuda_internal.cuh"

extern "C" void nnc_attn_dot_fwd(float *score, const float *q, const float *K, int B, int S, int F) {
  /* score_b (S,1) = K_b (S,F) · q_b (F,1) */
  nnc_gemm_batched(B, false, false, S, 1, F, 1, K, B * F, F, q, 1, F, 0, score, 1, S);
}

extern "C" void nnc_attn_dot_bwd(float *dq, float *dK, const float *dscore, const float *q,
                                 const float *K, int B, int S, int F) {
  if (dq) /* dq_b (1,F) += dscore_b (1,S) · K_b */
    nnc_gemm_batched(B, false, false, 1, F, S, 1, dscore, S, S, K, B * F, F, 1, dq, F, F);
  if (dK) /* dK_b (S,F) += dscore_bᵀ (S,1) · q_b (1,F) */
    nnc_gemm_batched(B, true, false, S, F, 1, 1, dscore, S, S, q, F, F, 1, dK, B * F, F);
}

extern "C" void nnc_attn_context_fwd(float *ctx, const float *a, const float *V, int B, int S, int F) {
  /* ctx_b (1,F) = a_b (1,S) · V_b (S,F) */
  nnc_gemm_batched(B, false, false, 1, F, S, 1, a, S, S, V, B * F, F, 0, ctx, F, F);
}

extern "C" void nnc_attn_context_bwd(float *da, float *dV, const float *dctx, const float *a,
                                     const float *V, int B, int S, int F) {
  if (da) /* da_b (S,1) += V_b (S,F) · dctx_b (F,1) */
    nnc_gemm_batched(B, false, false, S, 1, F, 1, V, B * F, F, dctx, 1, F, 1, da, 1, S);
  if (dV) /* dV_b (S,F) += a_bᵀ (S,1) · dctx_b (1,F) */
    nnc_gemm_batched(B, true, false, S, F, 1, 1, a, S, S, dctx, F, F, 1, dV, B * F, F);
}

// MLP scores, one warp per (b, s): score[b,s] = Σ_a v[a]·tanh(q[b,a] + K[s*B+b,a]),
// t[(b*S+s)*A + a] keeps the tanh.
__global__ static void attn_mlp_fwd_kernel(float *score, float *t, const float *q, const float *K,
                                           const float *v, int B, int S, int A) {
  int bs = nnc_warp_row(), lane = threadIdx.x % 32;
  if (bs >= B * S) return;
  int b = bs / S, s = bs % S;
  const float *qb = q + (size_t)b * A, *k = K + ((size_t)s * B + b) * A;
  float *tt = t + (size_t)bs * A, acc = 0;
  for (int a = lane; a < A; a += 32) {
    tt[a] = tanhf(qb[a] + k[a]);
    acc += v[a] * tt[a];
  }
  acc = nnc_warp_all(acc, nnc_sum_op());
  if (lane == 0) score[bs] = acc;
}

extern "C" void nnc_attn_mlp_fwd(float *score, float *t, const float *q, const float *K,
                                 const float *v, int B, int S, int A) {
  if (B * S <= 0) return;
  attn_mlp_fwd_kernel<<<nnc_warp_grid(B * S), NNC_THREADS, 0, nnc_stream>>>(score, t, q, K, v, B,
                                                                             S, A);
  nnc_launched("attn_mlp_fwd");
}

// dz[b,s,a] = dscore[b,s]·v[a]·(1 - t²): dK gets it elementwise, dq its sum
// over s, dv the sum over (b,s) of dscore·t.
extern "C" void nnc_attn_mlp_bwd(float *dq, float *dK, float *dv, const float *dscore,
                                 const float *t, const float *v, int B, int S, int A) {
  if (dK)
    nnc_each("attn_mlp_bwd", (size_t)B * S * A, [=] __device__(size_t i) {
      size_t bs = i / A, a = i % A, b = bs / S, s = bs % S;
      dK[(s * B + b) * A + a] += dscore[bs] * v[a] * (1 - t[i] * t[i]);
    });
  if (dq)
    nnc_col_sums("attn_mlp_bwd", dq, B, S, A, [=] __device__(int b, int s, int a) {
      size_t bs = (size_t)b * S + s;
      float tt = t[bs * A + a];
      return dscore[bs] * v[a] * (1 - tt * tt);
    });
  if (dv)
    nnc_col_sums("attn_mlp_bwd", dv, 1, B * S, A,
                 [=] __device__(int, int bs, int a) { return dscore[bs] * t[(size_t)bs * A + a]; });
}

// Local-p window: p_b = len[b]·sig[b], w = a·exp(-(s-p)²/2σ²) for |s-p| <= D, σ = D/2.
extern "C" void nnc_attn_local_fwd(float *w, const float *a, const float *sig, const int *len,
                                   int B, int S, float D) {
  float s2 = 2 * (D / 2) * (D / 2);
  nnc_each("attn_local_fwd", (size_t)B * S, [=] __device__(size_t i) {
    size_t b = i / S;
    float d = (float)(i % S) - len[b] * sig[b];
    w[i] = fabsf(d) <= D ? a[i] * expf(-d * d / s2) : 0.0f;
  });
}

// dw/da = gauss; dw/dp = a·gauss·(s-p)/σ²; dp/dsig = len. One warp per sentence.
__global__ static void attn_local_bwd_kernel(float *da, float *dsig, const float *dw, const float *a,
                                             const float *sig, const int *len, int B, int S,
                                             float D) {
  int b = nnc_warp_row(), lane = threadIdx.x % 32;
  if (b >= B) return;
  float var = (D / 2) * (D / 2), p = len[b] * sig[b], dp = 0;
  for (int s = lane; s < S; s += 32) {
    float d = s - p;
    if (fabsf(d) > D) continue;
    size_t at = (size_t)b * S + s;
    float gauss = expf(-d * d / (2 * var));
    if (da) da[at] += dw[at] * gauss;
    dp += dw[at] * a[at] * gauss * d / var;
  }
  dp = nnc_warp_all(dp, nnc_sum_op());
  if (dsig && lane == 0) dsig[b] += dp * len[b];
}

extern "C" void nnc_attn_local_bwd(float *da, float *dsig, const float *dw, const float *a,
                                   const float *sig, const int *len, int B, int S, float D) {
  if (B <= 0) return;
  attn_local_bwd_kernel<<<nnc_warp_grid(B), NNC_THREADS, 0, nnc_stream>>>(da, dsig, dw, a, sig, len,
                                                                          B, S, D);
  nnc_launched("attn_local_bwd");
}

// The sequence context of lib/nn/cells/srnmt_attn.c: all T decoder steps of a
// sentence at once. Sentence b's steps are rows b, B+b, ... of a and ctx, and
// its memory rows of V likewise: matrices of leading dims B*S and B*F, one
// batched GEMM over sentences.
#include "nn/cuda/nn_cuda_internal.cuh"

extern "C" void nnc_attn_context_seq_fwd(float *ctx, const float *a, const float *V, float scale,
                                         int T, int B, int S, int F) {
  /* ctx_b (T,F) = scale·a_b (T,S) · V_b (S,F) */
  nnc_gemm_batched(B, false, false, T, F, S, scale, a, B * S, S, V, B * F, F, 0, ctx, B * F, F);
}

extern "C" void nnc_attn_context_seq_bwd(float *da, float *dV, const float *dctx, const float *a,
                                         const float *V, float scale, int T, int B, int S, int F) {
  if (da) /* da_b (T,S) += scale·dctx_b (T,F) · V_bᵀ */
    nnc_gemm_batched(B, false, true, T, S, F, scale, dctx, B * F, F, V, B * F, F, 1, da, B * S, S);
  if (dV) /* dV_b (S,F) += scale·a_bᵀ (S,T) · dctx_b (T,F) */
    nnc_gemm_batched(B, true, false, S, F, T, scale, a, B * S, S, dctx, B * F, F, 1, dV, B * F, F);
}

// The beam search's candidates (lib/nn/topk.c): one block per sentence picks
// its k2 best in k2 rounds, each a block-wide maximum of a 64-bit key that
// orders by score, then by the lower index, below the key picked before.
#include "nn/cuda/nn_cuda_internal.cuh"

struct key_max_op {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const { return a > b ? a : b; }
};

// A float's order as unsigned bits (-inf low), then the index inverted: ties go to the lower.
__device__ static unsigned long long key_of(float s, int index) {
  unsigned u = __float_as_uint(s);
  u = (u & 0x80000000u) ? ~u : u | 0x80000000u;
  return (unsigned long long)u << 32 | (unsigned)~index;
}

__global__ static void topk_rows_kernel(float *score, int *index, const float *logp, const float *base, int K,
                                        int V, int skip, int k2) {
  int b = blockIdx.x;
  unsigned long long last = ~0ull; // the key picked in the round before
  for (int j = 0; j < k2; j++) {
    unsigned long long best = 0; // 0: no candidate left
    for (int k = 0; k < K; k++) {
      size_t r = (size_t)b * K + k;
      float br = base[r];
      if (br == -INFINITY) continue; // the whole block skips the row together
      for (int v = threadIdx.x; v < V; v += blockDim.x) {
        unsigned long long key = v == skip ? 0 : key_of(br + logp[r * V + v], k * V + v);
        if (key < last && key > best) best = key;
      }
    }
    best = nnc_block_all(best, key_max_op());
    if (threadIdx.x == 0) {
      bool any = best != 0;
      index[(size_t)b * k2 + j] = any ? (int)~(unsigned)(best & 0xffffffffu) : -1;
      if (any) {
        size_t r = (size_t)b * K + (~(unsigned)(best & 0xffffffffu)) / V;
        score[(size_t)b * k2 + j] = base[r] + logp[r * V + (~(unsigned)(best & 0xffffffffu)) % V];
      } else {
        score[(size_t)b * k2 + j] = -INFINITY;
      }
    }
    last = best ? best : last;
    if (!best) last = 0; // nothing below: the later rounds find nothing
  }
}

extern "C" void nnc_topk_rows(float *score, int *index, const float *logp, const float *base, int n, int K, int V,
                              int skip, int k2) {
  if (n <= 0 || k2 <= 0) return;
  topk_rows_kernel<<<n, NNC_THREADS, 0, nnc_stream>>>(score, index, logp, base, K, V, skip, k2);
  nnc_launched("topk_rows");
}

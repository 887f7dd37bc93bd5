// Inverted dropout with the Philox mask of lib/nn/rng.c + lib/nn/dropout.c:
// element i keeps iff uniform(seed, stream, offset + i) >= p, where word w of
// the stream is word w%4 of philox4x32-10(counter (w/4 lo, w/4 hi, stream lo,
// stream hi), key (seed lo, seed hi)) and uniform = (word >> 8)·2⁻²⁴.
// The same (seed, stream, offset) gives the CPU's mask bit for bit. nn_dropout
// passes stream = step·2³² + op and offset = part·2³⁴, so the counter words are
// (element/4, batch part, op, step), each a word of its own.
#include "nn/cuda/nn_cuda_internal.cuh"
#include "nn/philox.h"

__device__ static uint4 philox4x32(uint4 c, uint2 k) {
  const uint32_t M0 = NN_PHILOX_M0, M1 = NN_PHILOX_M1;
  for (int r = 0; r < NN_PHILOX_ROUNDS; r++) {
    uint32_t hi0 = __umulhi(M0, c.x), lo0 = M0 * c.x, hi1 = __umulhi(M1, c.z), lo1 = M1 * c.z;
    c = make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    k.x += NN_PHILOX_W0;
    k.y += NN_PHILOX_W1;
  }
  return c;
}

// One thread per Philox block: words [4·blk, 4·blk + 4) ∩ [offset, offset + n).
extern "C" void nnc_dropout_fwd(float *y, float *keep, const float *x, size_t n, float p,
                                uint64_t seed, uint64_t stream, uint64_t offset) {
  if (n == 0) return;
  float k = 1.0f / (1.0f - p); // computed as on the CPU, so kept values match exactly
  uint64_t first = offset / 4, blocks = (offset + n + 3) / 4 - first;
  uint2 key = make_uint2((uint32_t)seed, (uint32_t)(seed >> 32));
  nnc_each("dropout_fwd", blocks, [=] __device__(size_t j) {
    uint64_t blk = first + j;
    uint4 w = philox4x32(make_uint4((uint32_t)blk, (uint32_t)(blk >> 32), (uint32_t)stream,
                                    (uint32_t)(stream >> 32)),
                         key);
    uint32_t words[4] = {w.x, w.y, w.z, w.w};
    for (int q = 0; q < 4; q++) {
      uint64_t idx = blk * 4 + q;
      if (idx < offset || idx >= offset + n) continue;
      size_t i = idx - offset;
      float u = (float)(words[q] >> 8) * NN_PHILOX_UNIT;
      keep[i] = u >= p ? k : 0.0f;
      y[i] = x[i] * keep[i];
    }
  });
}

extern "C" void nnc_dropout_bwd(float *dx, const float *keep, const float *dy, size_t n) {
  nnc_each("dropout_bwd", n, [=] __device__(size_t i) { dx[i] += dy[i] * keep[i]; });
}

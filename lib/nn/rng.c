/* Philox4x32-10 and the uniform/normal fills built on it. */
#include "nn/rng.h"
#include "nn/philox.h"
#include "nn/rng_avx2.h"
#include "nn/vmath.h"
#include <math.h>
#include <stdbool.h>

void nn_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < NN_PHILOX_ROUNDS; r++) {
    uint64_t p0 = (uint64_t)NN_PHILOX_M0 * c0, p1 = (uint64_t)NN_PHILOX_M1 * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += NN_PHILOX_W0;
    k1 += NN_PHILOX_W1;
  }
  out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

static void block(uint64_t seed, uint64_t stream, uint64_t blk, uint32_t out[4]) {
  uint32_t ctr[4] = {(uint32_t)blk, (uint32_t)(blk >> 32), (uint32_t)stream,
                     (uint32_t)(stream >> 32)};
  uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  nn_philox4x32(ctr, key, out);
}

uint32_t nn_rng_u32(uint64_t seed, uint64_t stream, uint64_t index) {
  uint32_t out[4];
  block(seed, stream, index / 4, out);
  return out[index % 4];
}

static float to_unit(uint32_t x) { return (float)(x >> 8) * NN_PHILOX_UNIT; }

float nn_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index) {
  return to_unit(nn_rng_u32(seed, stream, index));
}

/* Walks the stream block by block: one Philox call per four outputs, or eight
 * blocks at once in AVX2 where the vector math has 8 lanes or more (NMT_ISA=sse
 * keeps the scalar path, which the tests compare it to). */
static void fill_unit(float *out, size_t n, uint64_t seed, uint64_t stream, uint64_t offset) {
  bool wide = nn_vmath_used()->lanes >= 8;
  size_t i = 0;
  while (i < n) {
    uint64_t idx = offset + i;
    if (wide && idx % 4 == 0 && n - i >= 32 && (uint32_t)(idx / 4) <= UINT32_MAX - 7) {
      nn_rng_units_avx2(out + i, seed, stream, idx / 4);
      i += 32;
      continue;
    }
    uint32_t w[4];
    block(seed, stream, idx / 4, w);
    for (unsigned k = (unsigned)(idx % 4); k < 4 && i < n; k++) out[i++] = to_unit(w[k]);
  }
}

void nn_rng_fill_uniform(float *out, size_t n, float lo, float hi, uint64_t seed,
                         uint64_t stream, uint64_t offset) {
  fill_unit(out, n, seed, stream, offset);
  for (size_t i = 0; i < n; i++) out[i] = lo + out[i] * (hi - lo);
}

void nn_rng_fill_normal(float *out, size_t n, float mean, float std, uint64_t seed,
                        uint64_t stream, uint64_t offset) {
  for (size_t i = 0; i < n; i += 2) {
    uint64_t idx = offset + i;
    /* 1 - u is in (0, 1], so the log is finite. */
    double u1 = 1.0 - nn_rng_uniform(seed, stream, idx);
    double u2 = nn_rng_uniform(seed, stream, idx + 1);
    double r = sqrt(-2.0 * log(u1)), th = 2.0 * M_PI * u2;
    out[i] = (float)(mean + std * r * cos(th));
    if (i + 1 < n) out[i + 1] = (float)(mean + std * r * sin(th));
  }
}

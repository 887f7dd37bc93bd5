/* The Philox counter RNG: known answers, streams and distributions. */
#include "nn/rng.h"
#include "nn/rng_avx2.h"
#include "test.h"
#include <math.h>
#include <stdint.h>

TEST(nn_rng_philox_known_answers) {
  /* Random123's kat_vectors for philox4x32-10. */
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
       0x94fdcceb, 0x5001e420, 0x24126ea1},
  };
  for (int i = 0; i < 3; i++) {
    uint32_t out[4];
    nn_philox4x32(kat[i], kat[i] + 4, out);
    for (int k = 0; k < 4; k++) CHECK_INT(out[k], kat[i][6 + k]);
  }
}

TEST(nn_rng_streams_and_distributions) {
  enum { N = 100001 };
  static float u[N], z[N];
  nn_rng_fill_uniform(u, N, 0, 1, 42, 3, 0);
  /* Any element is reproducible alone, from any offset. */
  CHECK(u[77777] == nn_rng_uniform(42, 3, 77777));
  float part[5];
  nn_rng_fill_uniform(part, 5, 0, 1, 42, 3, 1001);
  CHECK(part[0] == u[1001] && part[4] == u[1005]);
  CHECK(u[5] != nn_rng_uniform(42, 4, 5) && u[5] != nn_rng_uniform(43, 3, 5));
  double s = 0;
  for (int i = 0; i < N; i++) {
    CHECK(u[i] >= 0 && u[i] < 1);
    s += u[i];
  }
  CHECK_NEAR(s / N, 0.5, 0.005);
  nn_rng_fill_normal(z, N, 1, 2, 42, 5, 0);
  double m = 0, v = 0;
  for (int i = 0; i < N; i++) m += z[i];
  m /= N;
  for (int i = 0; i < N; i++) v += (z[i] - m) * (z[i] - m);
  CHECK_NEAR(m, 1, 0.03);
  CHECK_NEAR(sqrt(v / N), 2, 0.03);
}

/* The fill, scalar or 8 blocks at a time in AVX2 (nn/rng_avx2.c), gives the
 * per-index uniforms bit for bit: any offset and length, and across the wrap
 * of the block counter's low 32 bits (the wide path stops short of it). */
TEST(nn_rng_fill_matches_per_index) {
  static const uint64_t offsets[] = {0, 1, 3, 4, 4 * 1000 + 2, 4 * ((uint64_t)UINT32_MAX - 9) + 1};
  enum { N = 131 };
  float u[N];
  for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++)
    for (size_t n = 0; n <= N; n += 13) {
      nn_rng_fill_uniform(u, n, 0, 1, 0x123456789abcdefULL, 0xfedcba987654321ULL, offsets[o]);
      for (size_t i = 0; i < n; i++)
        CHECK(u[i] == nn_rng_uniform(0x123456789abcdefULL, 0xfedcba987654321ULL, offsets[o] + i));
    }
#if defined(__x86_64__) && defined(__GNUC__)
  if (!__builtin_cpu_supports("avx2")) return; /* NMT_ISA=sse still tests the AVX2 blocks here */
  float w[32];
  nn_rng_units_avx2(w, 42, 7, 12345);
  for (int i = 0; i < 32; i++) CHECK(w[i] == nn_rng_uniform(42, 7, 4 * 12345 + (uint64_t)i));
#endif
}

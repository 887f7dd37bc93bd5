/* int8 GEMM for inference; see nn/qgemm.h. The three kernels (portable, VNNI,
 * AVX2) bring the same integer, Σ (a - 128)·w, to the same float epilogue (the
 * AVX2 one sums it directly, the others subtract 128·colsum), so they agree to
 * the last bit except where the compiler contracts the portable epilogue into
 * an FMA. */
#include "nn/qgemm.h"
#include "nn/vmath.h"
#include "base/err.h"
#include "nn/parallel.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NR = 64, MR = 6 };

static nn_qgemm_kernel forced = NN_QGEMM_BEST;
void nn_qgemm_force(nn_qgemm_kernel k) { forced = k; }

void nn_qmat_free(nn_qmat *q) {
  free(q->w), free(q->scale), free(q->colsum);
  memset(q, 0, sizeof *q);
}

static int8_t *qbyte(const nn_qmat *q, int k, int j) {
  return q->w + (((size_t)(j / NR) * q->K4 + k / 4) * NR + j % NR) * 4 + k % 4;
}

/* Room for a (K, N) matrix, zeroed. NMT_OK or NMT_EIO. */
static int qmat_alloc(nn_qmat *q, int K, int N) {
  *q = (nn_qmat){.K = K, .N = N, .K4 = (K + 3) / 4, .panels = (N + NR - 1) / NR};
  size_t cols = (size_t)q->panels * NR, bytes = cols * (size_t)q->K4 * 4;
  q->w = aligned_alloc(64, bytes ? bytes : 64);
  q->scale = calloc(cols ? cols : 1, sizeof *q->scale);
  q->colsum = calloc(cols ? cols : 1, sizeof *q->colsum);
  if (!q->w || !q->scale || !q->colsum) {
    nn_qmat_free(q);
    return nmt_fail(NMT_EIO, "out of memory: int8 weights (%d, %d)", K, N);
  }
  memset(q->w, 0, bytes);
  return NMT_OK;
}

int nn_qmat_gather(nn_qmat *q, const nn_qmat *src, const int *cols, int n) {
  if (qmat_alloc(q, src->K, n)) return NMT_EIO;
  for (int j = 0; j < n; j++) {
    int c = cols[j];
    for (int k4 = 0; k4 < q->K4; k4++) memcpy(qbyte(q, 4 * k4, j), qbyte(src, 4 * k4, c), 4);
    q->scale[j] = src->scale[c], q->colsum[j] = src->colsum[c];
  }
  return NMT_OK;
}

int nn_qmat_pack(nn_qmat *q, const float *W, int K, int N, int ldw) {
  if (qmat_alloc(q, K, N)) return NMT_EIO;
  for (int k = 0; k < K; k++) /* scale: the column's largest magnitude (rows are contiguous) */
    for (int j = 0; j < N; j++) q->scale[j] = fmaxf(q->scale[j], fabsf(W[(size_t)k * ldw + j]));
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++) {
      float mx = q->scale[j];
      int v = mx > 0 ? (int)lrintf(W[(size_t)k * ldw + j] * (127 / mx)) : 0;
      *qbyte(q, k, j) = (int8_t)v;
      q->colsum[j] += v;
    }
  for (int j = 0; j < N; j++) q->scale[j] /= 127;
  return NMT_OK;
}

/* Row x (K) as K4·4 shifted bytes (padding: 128, i.e. zero); returns s_x. */
static float quant_row_portable(uint8_t *a, const float *x, int K, int K4) {
  float mx = 0;
  for (int k = 0; k < K; k++) mx = fmaxf(mx, fabsf(x[k]));
  float inv = mx > 0 ? 127 / mx : 0;
  for (int k = 0; k < K; k++) a[k] = (uint8_t)(lrintf(x[k] * inv) + 128);
  memset(a + K, 128, (size_t)(4 * K4 - K));
  return mx / 127;
}

/* Rows [0, R) of one panel: cols of its 64 columns written to C. */
static void panel_portable(int R, int K4, const uint8_t *a, int astride, const int8_t *w,
                           const float *sx, const float *scale, const int32_t *colsum, float beta,
                           float *C, int ldc, int cols) {
  for (int i = 0; i < R; i++)
    for (int c = 0; c < cols; c++) {
      int32_t s = 0;
      for (int k4 = 0; k4 < K4; k4++)
        for (int b = 0; b < 4; b++)
          s += (int32_t)a[(size_t)i * astride + 4 * k4 + b] * w[((size_t)k4 * NR + c) * 4 + b];
      float y = (float)(s - 128 * colsum[c]) * (sx[i] * scale[c]);
      float *o = C + (size_t)i * ldc + c;
      *o = beta != 0 ? y + *o : y;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_VNNI_KERNEL 1

__attribute__((target("avx512f"))) static float quant_row_avx512(uint8_t *a, const float *x,
                                                                  int K, int K4) {
  __m512 mx = _mm512_setzero_ps();
  for (int k = 0; k < K; k += 16) {
    __mmask16 m = (__mmask16)(K - k >= 16 ? 0xffff : (1u << (K - k)) - 1);
    mx = _mm512_max_ps(mx, _mm512_abs_ps(_mm512_maskz_loadu_ps(m, x + k)));
  }
  float top = _mm512_reduce_max_ps(mx), inv = top > 0 ? 127 / top : 0;
  __m512 vi = _mm512_set1_ps(inv);
  __m512i shift = _mm512_set1_epi32(128);
  int k = 0;
  for (; k + 16 <= K; k += 16) /* round to nearest even, as lrintf */
    _mm_storeu_si128((__m128i *)(a + k), _mm512_cvtepi32_epi8(_mm512_add_epi32(
                                             _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x + k), vi)), shift)));
  for (; k < K; k++) a[k] = (uint8_t)(lrintf(x[k] * inv) + 128);
  memset(a + K, 128, (size_t)(4 * K4 - K));
  return top / 127;
}

/* The panel's R×64 sums in registers: per 4 rows k, four 64-byte loads of
 * weights and, per row of A, one broadcast of its 4 bytes and four VNNI ops. */
#define QPANEL(R)                                                                              \
  __attribute__((target("avx512f,avx512vnni"))) static void qpanel##R(                         \
      int K4, const uint8_t *a, int astride, const int8_t *w, const float *sx,                 \
      const float *scale, const int32_t *colsum, float beta, float *C, int ldc,                \
      const __mmask16 *m) {                                                                    \
    __m512i s[R][4];                                                                           \
    _Pragma("GCC unroll 8") for (int i = 0; i < R; i++)                                        \
        _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) s[i][j] = _mm512_setzero_si512();  \
    for (int k4 = 0; k4 < K4; k4++) {                                                          \
      const int8_t *b = w + (size_t)k4 * NR * 4;                                               \
      _mm_prefetch((const char *)(b + 8 * NR * 4), _MM_HINT_T0);                               \
      _mm_prefetch((const char *)(b + 8 * NR * 4 + 128), _MM_HINT_T0);                         \
      __m512i wv[4];                                                                           \
      _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) wv[j] = _mm512_load_si512(b + 64 * j); \
      _Pragma("GCC unroll 8") for (int i = 0; i < R; i++) {                                    \
        int32_t a4;                                                                            \
        memcpy(&a4, a + (size_t)i * astride + 4 * k4, 4);                                      \
        __m512i av = _mm512_set1_epi32(a4);                                                    \
        _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) s[i][j] =                          \
            _mm512_dpbusd_epi32(s[i][j], av, wv[j]);                                           \
      }                                                                                        \
    }                                                                                          \
    for (int j = 0; j < 4; j++) {                                                              \
      __m512i cs = _mm512_slli_epi32(_mm512_loadu_si512(colsum + 16 * j), 7);                  \
      __m512 sc = _mm512_loadu_ps(scale + 16 * j);                                             \
      for (int i = 0; i < R; i++) {                                                            \
        float *c = C + (size_t)i * ldc + 16 * j;                                               \
        __m512 y = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(s[i][j], cs)),            \
                                 _mm512_mul_ps(_mm512_set1_ps(sx[i]), sc));                    \
        if (beta != 0) y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(m[j], c));                   \
        _mm512_mask_storeu_ps(c, m[j], y);                                                     \
      }                                                                                        \
    }                                                                                          \
  }
QPANEL(1) QPANEL(2) QPANEL(3) QPANEL(4) QPANEL(5) QPANEL(6)

typedef void qpanel_fn(int, const uint8_t *, int, const int8_t *, const float *, const float *,
                       const int32_t *, float, float *, int, const __mmask16 *);
static qpanel_fn *const qpanels[MR + 1] = {0, qpanel1, qpanel2, qpanel3, qpanel4, qpanel5, qpanel6};

/* As quant_row_portable, 32 values at a time: cvtps rounds to nearest even
 * as lrintf does, so the bytes are the same. */
__attribute__((target("avx2"))) static float quant_row_avx2(uint8_t *a, const float *x, int K, int K4) {
  __m256 mx = _mm256_setzero_ps(), sign = _mm256_set1_ps(-0.0f);
  int k = 0;
  for (; k + 8 <= K; k += 8) mx = _mm256_max_ps(mx, _mm256_andnot_ps(sign, _mm256_loadu_ps(x + k)));
  __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
  m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
  float top = fmaxf(_mm_cvtss_f32(m4), _mm_cvtss_f32(_mm_movehdup_ps(m4)));
  for (; k < K; k++) top = fmaxf(top, fabsf(x[k]));
  float inv = top > 0 ? 127 / top : 0;
  __m256 vi = _mm256_set1_ps(inv);
  __m256i shift = _mm256_set1_epi32(128), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (k = 0; k + 32 <= K; k += 32) {
    __m256i q[4];
    for (int j = 0; j < 4; j++)
      q[j] = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + k + 8 * j), vi)), shift);
    __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
    _mm256_storeu_si256((__m256i *)(a + k), _mm256_permutevar8x32_epi32(b, order));
  }
  for (; k < K; k++) a[k] = (uint8_t)(lrintf(x[k] * inv) + 128);
  memset(a + K, 128, (size_t)(4 * K4 - K));
  return top / 127;
}

/* AVX2 has no u8·s8 dot product that cannot saturate (vpmaddubsw adds two
 * products in 16 bits: 2·255·127 overflows), so each activation's sign moves
 * onto the weight: the activations unshifted (a ^ 0x80 = a - 128, in [-127, 127]),
 * vpmaddubsw(|a|, sign(a)·w) adds two products of at most 127·127 each, and
 * vpmaddwd by ones sums each column's four: Σ (a - 128)·w exactly, VNNI's sum
 * less its 128·colsum. The weights are used as stored (no widening). A quarter
 * panel (16 columns, 64 bytes per 4 rows k) at a time: per row of A, two sums
 * of 8 columns. The k loop unrolled 4 times with a prefetch 8 k4 ahead. */
#define QQUARTER(R)                                                                            \
  __attribute__((target("avx2"))) static void qquarter##R(                                      \
      int K4, const uint8_t *a, int astride, const int8_t *w, __m256i out[R][2]) {              \
    const __m256i flip = _mm256_set1_epi8((char)0x80), ones = _mm256_set1_epi16(1);             \
    __m256i s[R][2];                                                                           \
    _Pragma("GCC unroll 3") for (int i = 0; i < R; i++) s[i][0] = s[i][1] = _mm256_setzero_si256(); \
    _Pragma("GCC unroll 4") for (int k4 = 0; k4 < K4; k4++) {                                  \
      const int8_t *b = w + (size_t)k4 * NR * 4;                                               \
      _mm_prefetch((const char *)(b + 8 * NR * 4), _MM_HINT_T0);                               \
      __m256i w0 = _mm256_loadu_si256((const __m256i *)b);                                     \
      __m256i w1 = _mm256_loadu_si256((const __m256i *)(b + 32));                              \
      _Pragma("GCC unroll 3") for (int i = 0; i < R; i++) {                                    \
        int32_t a4;                                                                            \
        memcpy(&a4, a + (size_t)i * astride + 4 * k4, 4);                                      \
        __m256i as = _mm256_xor_si256(_mm256_set1_epi32(a4), flip), aa = _mm256_abs_epi8(as);  \
        s[i][0] = _mm256_add_epi32(s[i][0], _mm256_madd_epi16(                                 \
                                                _mm256_maddubs_epi16(aa, _mm256_sign_epi8(w0, as)), ones)); \
        s[i][1] = _mm256_add_epi32(s[i][1], _mm256_madd_epi16(                                 \
                                                _mm256_maddubs_epi16(aa, _mm256_sign_epi8(w1, as)), ones)); \
      }                                                                                        \
    }                                                                                          \
    _Pragma("GCC unroll 3") for (int i = 0; i < R; i++) out[i][0] = s[i][0], out[i][1] = s[i][1]; \
  }
QQUARTER(1) QQUARTER(2) QQUARTER(3)

/* Rows [0, R) of one panel (R <= 6), cols of its columns: three rows at a
 * time, a quarter panel at a time, then the float epilogue of the portable loop. */
__attribute__((target("avx2"))) static void qpanel_avx2(
    int R, int K4, const uint8_t *a, int astride, const int8_t *w, const float *sx,
    const float *scale, float beta, float *C, int ldc, int cols) {
  for (int i0 = 0; i0 < R; i0 += 3) {
    int r = R - i0 < 3 ? R - i0 : 3;
    for (int q = 0; 16 * q < cols; q++) {
      __m256i sums[3][2];
      const uint8_t *ai = a + (size_t)i0 * astride;
      const int8_t *wq = w + 64 * q;
      if (r == 1) qquarter1(K4, ai, astride, wq, sums);
      else if (r == 2) qquarter2(K4, ai, astride, wq, sums);
      else qquarter3(K4, ai, astride, wq, sums);
      for (int h = 0; h < 2; h++) {
        int c0 = 16 * q + 8 * h, left = cols - c0;
        if (left <= 0) break;
        __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256 sc = _mm256_loadu_ps(scale + c0);
        for (int i = 0; i < r; i++) { /* the sums are already less 128·colsum */
          float *c = C + (size_t)(i0 + i) * ldc + c0;
          __m256 y = _mm256_mul_ps(_mm256_cvtepi32_ps(sums[i][h]), _mm256_mul_ps(_mm256_set1_ps(sx[i0 + i]), sc));
          if (beta != 0) y = _mm256_add_ps(y, _mm256_maskload_ps(c, m));
          _mm256_maskstore_ps(c, m, y);
        }
      }
    }
  }
}

static bool has_vnni(void) {
  static int ok = -1;
  /* at AVX-512's width only: NMT_ISA lowers int8 with the rest */
  if (ok < 0) ok = nn_vmath_used()->lanes == 16 && __builtin_cpu_supports("avx512vnni");
  return ok;
}

bool nn_qgemm_vnni(void) { return has_vnni() && forced == NN_QGEMM_BEST; }

bool nn_qgemm_avx2(void) {
  static int ok = -1;
  if (ok < 0) ok = nn_vmath_used()->lanes >= 8 && __builtin_cpu_supports("avx2");
  return ok && (forced == NN_QGEMM_AVX2 || (forced == NN_QGEMM_BEST && !has_vnni()));
}
#else
bool nn_qgemm_vnni(void) { return false; }
bool nn_qgemm_avx2(void) { return false; }
#endif

typedef struct {
  int M, n, astride, ldc;
  float beta;
  const uint8_t *a;
  const float *sx;
  const nn_qmat *q;
  float *C;
} job;

/* Panels [part·P/parts, (part+1)·P/parts) of the P = ⌈n/64⌉. */
static void run(void *ctx, int part, int parts) {
  const job *j = ctx;
  const nn_qmat *q = j->q;
  int P = (j->n + NR - 1) / NR;
#ifdef HAVE_VNNI_KERNEL
  bool vnni = nn_qgemm_vnni(), avx2 = nn_qgemm_avx2();
#endif
  for (int p = P * part / parts; p < P * (part + 1) / parts; p++) {
    int n0 = p * NR, cols = j->n - n0 < NR ? j->n - n0 : NR;
    const int8_t *w = q->w + (size_t)p * q->K4 * NR * 4;
    for (int r = 0; r < j->M; r += MR) {
      int R = j->M - r < MR ? j->M - r : MR;
      const uint8_t *a = j->a + (size_t)r * j->astride;
      float *C = j->C + (size_t)r * j->ldc + n0;
#ifdef HAVE_VNNI_KERNEL
      if (vnni) {
        __mmask16 m[4];
        for (int i = 0; i < 4; i++) {
          int left = cols - 16 * i;
          m[i] = (__mmask16)(left >= 16 ? 0xffff : left > 0 ? (1u << left) - 1 : 0);
        }
        qpanels[R](q->K4, a, j->astride, w, j->sx + r, q->scale + n0, q->colsum + n0, j->beta, C,
                   j->ldc, m);
        continue;
      }
      if (avx2) {
        qpanel_avx2(R, q->K4, a, j->astride, w, j->sx + r, q->scale + n0, j->beta, C, j->ldc, cols);
        continue;
      }
#endif
      panel_portable(R, q->K4, a, j->astride, w, j->sx + r, q->scale + n0, q->colsum + n0,
                     j->beta, C, j->ldc, cols);
    }
  }
}

size_t nn_qgemm_scratch(int M, const nn_qmat *q) {
  return (size_t)(M > 0 ? M : 0) * (4 * (size_t)q->K4 + sizeof(float));
}

void nn_qgemm(int M, int n, const float *A, int lda, const nn_qmat *q, float beta, float *C,
              int ldc, void *scratch) {
  if (M < 1 || n < 1) return;
  int astride = 4 * q->K4;
  uint8_t *a = scratch;
  float *sx = (float *)(a + (size_t)M * astride); /* astride is a multiple of 4: aligned */
  for (int i = 0; i < M; i++) {
#ifdef HAVE_VNNI_KERNEL
    if (nn_qgemm_vnni()) {
      sx[i] = quant_row_avx512(a + (size_t)i * astride, A + (size_t)i * lda, q->K, q->K4);
      continue;
    }
    if (nn_qgemm_avx2()) {
      sx[i] = quant_row_avx2(a + (size_t)i * astride, A + (size_t)i * lda, q->K, q->K4);
      continue;
    }
#endif
    sx[i] = quant_row_portable(a + (size_t)i * astride, A + (size_t)i * lda, q->K, q->K4);
  }
  job j = {M, n, astride, ldc, beta, a, sx, q, C};
  nn_parallel((size_t)q->K * n * (size_t)M / 4, run, &j);
}

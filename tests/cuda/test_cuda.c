/* The CUDA kernels (lib/nn/cuda/nn_cuda.h) against the CPU ops (lib/nn/kernels.h)
 * on the same random inputs: outputs start as NaN on both sides (an element a
 * kernel forgets to write fails), gradients start random (checks +=), and a
 * device value passes when |gpu - cpu| <= tol·max(1, |cpu|); NaN never passes.
 * Without a usable GPU every kernel case reports itself skipped, with the reason.
 * Built by `make cuda` into nmt-tests-cuda, and by `make emu` into nmt-tests-emu,
 * where the same kernels run on the CUDA emulator and nothing skips (docs/gpu.md). */
#include "nn/device.h"
#include "base/err.h"
#include "nn/cells/atr.h"
#include "nn/cuda/nn_cuda.h"
#include "nn/cells/gru.h"
#include "nn/kernels.h"
#include "nn/pgemm.h"
#include "nn/cells/lstm_peep.h"
#include "nn/maxpool.h"
#include "nn/cells/rhn.h"
#include "nn/rng.h"
#include "nn/cells/srnmt_attn.h"
#include "nn/cells/highway.h"
#include "nn/cells/wscan.h"
#include "nn/vmath.h"
#include "cuda/gpu_case.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>

enum { MAX_BUFS = 256 };
static const double FP32 = 1e-5, TF32 = 1e-2;

/* ---- the same buffer on the host (for the CPU op) and on the device ---- */

typedef struct {
  float *cpu, *gpu;
  size_t n;
} pair;

static void *host_bufs[MAX_BUFS], *dev_bufs[MAX_BUFS];
static int nhost, ndev;
static uint64_t stream_no;

static void *host(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p || nhost == MAX_BUFS) abort();
  return host_bufs[nhost++] = p;
}

static void *dev_copy(const void *h, size_t bytes) {
  void *d = NULL;
  if (ndev == MAX_BUFS || nnc_alloc(&d, bytes) || nnc_to_device(d, h, bytes)) {
    T_FAIL("device buffer of %zu bytes: %s", bytes, nmt_errmsg());
    return d;
  }
  return dev_bufs[ndev++] = d;
}

/* Frees every buffer of the case. */
static void release(void) {
  while (nhost) free(host_bufs[--nhost]);
  while (ndev) nnc_free(dev_bufs[--ndev]);
}

static pair uniform(size_t n, float lo, float hi) {
  pair p = {host(n * sizeof(float)), NULL, n};
  nn_rng_fill_uniform(p.cpu, n, lo, hi, 7, ++stream_no, 0);
  p.gpu = dev_copy(p.cpu, n * sizeof(float));
  return p;
}
static pair rnd(size_t n) { return uniform(n, -1, 1); }

static pair poison(size_t n) {
  pair p = {host(n * sizeof(float)), NULL, n};
  for (size_t i = 0; i < n; i++) p.cpu[i] = NAN;
  p.gpu = dev_copy(p.cpu, n * sizeof(float));
  return p;
}

/* The part of p from element off on. */
static pair at(pair p, size_t off) { return (pair){p.cpu + off, p.gpu + off, p.n - off}; }

static int *dev_ints(const int *h, size_t n) { return dev_copy(h, n * sizeof *h); }

/* The device ints gpu (n) equal the host ints cpu. */
static void same_ints(const char *what, const int *cpu, const int *gpu, size_t n) {
  int *g = host(n * sizeof *g);
  if (nnc_to_host(g, gpu, n * sizeof *g)) {
    T_FAIL("%s", nmt_errmsg());
    return;
  }
  for (size_t i = 0; i < n; i++)
    if (g[i] != cpu[i]) {
      T_FAIL("%s: [%zu] gpu %d, cpu %d", what, i, g[i], cpu[i]);
      return;
    }
}

static float *download(pair p) {
  float *g = host(p.n * sizeof(float));
  if (nnc_to_host(g, p.gpu, p.n * sizeof(float))) {
    T_FAIL("%s", nmt_errmsg());
    return NULL;
  }
  return g;
}

/* Compares the (rows, cols) block with leading dim ld at the start of p. */
static void close_block(const char *what, pair p, size_t rows, size_t cols, size_t ld, double tol) {
  float *g = download(p);
  if (!g) return;
  size_t bad = 0, first = 0;
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) {
      size_t i = r * ld + c;
      double want = p.cpu[i], got = g[i];
      if (isnan(got) || isnan(want) || fabs(got - want) > tol * fmax(1, fabs(want)))
        if (!bad++) first = i;
    }
  if (bad)
    T_FAIL("%s: %zu of %zu elements differ, first [%zu]: gpu %.9g, cpu %.9g", what, bad,
           rows * cols, first, g[first], p.cpu[first]);
}
static void close_all(const char *what, pair p, double tol) { close_block(what, p, 1, p.n, p.n, tol); }

/* ---- GEMM ---- */

static void check_gemm(bool ta, bool tb, int M, int N, int K, float alpha, float beta, double tol) {
  int ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
  int lda = ac + 3, ldb = bc + 2, ldc = N + 1; /* leading dims wider than the rows */
  pair A = rnd((size_t)ar * lda), B = rnd((size_t)br * ldb);
  pair C = beta == 0 ? poison((size_t)M * ldc) : rnd((size_t)M * ldc);
  nn_gemm(ta, tb, M, N, K, alpha, A.cpu, lda, B.cpu, ldb, beta, C.cpu, ldc);
  nnc_gemm(ta, tb, M, N, K, alpha, A.gpu, lda, B.gpu, ldb, beta, C.gpu, ldc);
  char what[80];
  snprintf(what, sizeof what, "gemm ta=%d tb=%d M=%d beta=%g", ta, tb, M, beta);
  close_block(what, C, M, N, ldc, tol);
}

TEST(cuda_gemm) {
  NEED_GPU();
  for (int k = 0; k < 4; k++) {
    check_gemm(k & 1, k >> 1, 37, 29, 45, 1, 0, FP32);
    check_gemm(k & 1, k >> 1, 3, 29, 45, 0.5f, 1, FP32); /* the CPU's sgemv path */
  }
  release();
}

TEST(cuda_gemm_tf32) {
  NEED_GPU();
  nnc_set_tf32(true);
  check_gemm(false, true, 64, 64, 256, 1, 0, TF32);
  nnc_set_tf32(false);
  release();
}

TEST(cuda_gemm_batched) {
  NEED_GPU();
  int batch = 3, M = 5, N = 4, K = 6;
  long sa = K * M + 7, sb = K * N + 2, sc = M * N + 3;
  pair A = rnd(batch * sa), B = rnd(batch * sb), C = rnd(batch * sc);
  nn_gemm_batched(batch, true, false, M, N, K, 1, A.cpu, M, sa, B.cpu, N, sb, 1, C.cpu, N, sc);
  nnc_gemm_batched(batch, true, false, M, N, K, 1, A.gpu, M, sa, B.gpu, N, sb, 1, C.gpu, N, sc);
  close_all("gemm_batched", C, FP32);
  release();
}

/* The packed forms differ (panels on the CPU, plain on a GPU): their products agree. */
TEST(cuda_gemm_packed) {
  NEED_GPU();
  int M = 7, N = 33, K = 17;
  for (int trans = 0; trans < 2; trans++) {
    pair W = rnd(K * N), A = rnd(M * K), C = rnd(M * N), P = poison(nn_packed_floats(K, N));
    const float *pc = nn_pack_weight(P.cpu, W.cpu, K, N, trans);
    const float *pg = nnc_pack_weight(P.gpu, W.gpu, K, N, trans);
    nn_gemm_packed(M, N, K, A.cpu, K, pc, 1, C.cpu, N);
    nnc_gemm_packed(M, N, K, A.gpu, K, pg, 1, C.gpu, N);
    close_all("gemm_packed", C, FP32);
    release();
  }
}

/* ---- pointwise ---- */

TEST(cuda_pointwise) {
  NEED_GPU();
  size_t n = 1031;
  pair x = uniform(n, -6, 6), b = rnd(n), dy = rnd(n), y = poison(n), dx = rnd(n), db = rnd(n);
  nn_sigmoid_fwd(y.cpu, x.cpu, n), nnc_sigmoid_fwd(y.gpu, x.gpu, n);
  close_all("sigmoid_fwd", y, FP32);
  nn_sigmoid_bwd(dx.cpu, y.cpu, dy.cpu, n), nnc_sigmoid_bwd(dx.gpu, y.gpu, dy.gpu, n);
  close_all("sigmoid_bwd", dx, FP32);
  nn_tanh_fwd(y.cpu, x.cpu, n), nnc_tanh_fwd(y.gpu, x.gpu, n);
  close_all("tanh_fwd", y, FP32);
  nn_tanh_bwd(dx.cpu, y.cpu, dy.cpu, n), nnc_tanh_bwd(dx.gpu, y.gpu, dy.gpu, n);
  close_all("tanh_bwd", dx, FP32);
  nn_axpby_fwd(y.cpu, x.cpu, b.cpu, -1, n), nnc_axpby_fwd(y.gpu, x.gpu, b.gpu, -1, n);
  close_all("axpby_fwd", y, FP32);
  nn_axpby_bwd(dx.cpu, db.cpu, dy.cpu, -1, n), nnc_axpby_bwd(dx.gpu, db.gpu, dy.gpu, -1, n);
  close_all("axpby_bwd da", dx, FP32);
  close_all("axpby_bwd db", db, FP32);
  nn_axpby_bwd(NULL, db.cpu, dy.cpu, 1, n), nnc_axpby_bwd(NULL, db.gpu, dy.gpu, 1, n);
  close_all("axpby_bwd NULL da", db, FP32);
  nn_mul_fwd(y.cpu, x.cpu, b.cpu, n), nnc_mul_fwd(y.gpu, x.gpu, b.gpu, n);
  close_all("mul_fwd", y, FP32);
  nn_mul_bwd(dx.cpu, db.cpu, x.cpu, b.cpu, dy.cpu, n);
  nnc_mul_bwd(dx.gpu, db.gpu, x.gpu, b.gpu, dy.gpu, n);
  close_all("mul_bwd da", dx, FP32);
  close_all("mul_bwd db", db, FP32);
  nn_scale_fwd(y.cpu, x.cpu, -3, n), nnc_scale_fwd(y.gpu, x.gpu, -3, n);
  close_all("scale_fwd", y, FP32);
  nn_scale_bwd(dx.cpu, dy.cpu, -3, n), nnc_scale_bwd(dx.gpu, dy.gpu, -3, n);
  close_all("scale_bwd", dx, FP32);
  nn_shift_fwd(y.cpu, x.cpu, 0.75f, n), nnc_shift_fwd(y.gpu, x.gpu, 0.75f, n);
  close_all("shift_fwd", y, FP32);
  release();
}

TEST(cuda_bias) {
  NEED_GPU();
  int R = 70, C = 45; /* two column tiles, rows over all the thread rows */
  pair x = rnd(R * C), bias = rnd(C), y = poison(R * C), dy = rnd(R * C), dx = rnd(R * C),
       dbias = rnd(C);
  nn_bias_fwd(y.cpu, x.cpu, bias.cpu, R, C), nnc_bias_fwd(y.gpu, x.gpu, bias.gpu, R, C);
  close_all("bias_fwd", y, FP32);
  nn_bias_bwd(dx.cpu, dbias.cpu, dy.cpu, R, C), nnc_bias_bwd(dx.gpu, dbias.gpu, dy.gpu, R, C);
  close_all("bias_bwd dx", dx, FP32);
  close_all("bias_bwd dbias", dbias, FP32);
  release();
}

/* ---- shape ---- */

TEST(cuda_copy_cols_and_gather) {
  NEED_GPU();
  int R = 13, lds = 50, ldd = 41, C = 29;
  pair src = rnd(R * lds), dst = rnd(R * ldd), fresh = poison(R * C);
  nn_copy_cols(dst.cpu + 5, ldd, src.cpu + 3, lds, R, C, 0);
  nnc_copy_cols(dst.gpu + 5, ldd, src.gpu + 3, lds, R, C, 0);
  close_all("copy_cols beta 0", dst, FP32); /* the columns outside the block untouched */
  nn_copy_cols(dst.cpu + 5, ldd, src.cpu + 3, lds, R, C, 0.5f);
  nnc_copy_cols(dst.gpu + 5, ldd, src.gpu + 3, lds, R, C, 0.5f);
  close_all("copy_cols beta 0.5", dst, FP32);
  nn_copy_cols(fresh.cpu, C, src.cpu, lds, R, C, 0), nnc_copy_cols(fresh.gpu, C, src.gpu, lds, R, C, 0);
  close_all("copy_cols over NaN", fresh, FP32);

  int N = 20, D = 37, V = 9, ids[20];
  for (int i = 0; i < N; i++) ids[i] = (i * 5 + 3) % V; /* every row used, most twice or more */
  int *dids = dev_ints(ids, N);
  pair E = rnd(V * D), y = poison(N * D), dy = rnd(N * D), dE = rnd(V * D);
  nn_gather_fwd(y.cpu, E.cpu, ids, N, D), nnc_gather_fwd(y.gpu, E.gpu, dids, N, D);
  close_all("gather_fwd", y, FP32);
  nn_gather_bwd(dE.cpu, ids, dy.cpu, N, D), nnc_gather_bwd(dE.gpu, dids, dy.gpu, N, D);
  close_all("gather_bwd", dE, FP32);
  int rows[6] = {7, 0, 3, 8, 1, 5}, *drows = dev_ints(rows, 6); /* distinct */
  pair a = rnd(V * D), x = rnd(6 * D);
  nn_scatter_rows(a.cpu, rows, x.cpu, 6, D), nnc_scatter_rows(a.gpu, drows, x.gpu, 6, D);
  close_all("scatter_rows", a, FP32); /* the other rows untouched */
  release();
}

/* ---- layer norm, softmax, cross-entropy ---- */

TEST(cuda_layernorm) {
  NEED_GPU();
  int R = 11, C = 300;
  pair x = uniform(R * C, -2, 3), gain = rnd(C), bias = rnd(C), y = poison(R * C),
       mean = poison(R), rstd = poison(R), dy = rnd(R * C), dx = rnd(R * C), dgain = rnd(C),
       dbias = rnd(C);
  nn_layernorm_fwd(y.cpu, mean.cpu, rstd.cpu, x.cpu, gain.cpu, bias.cpu, R, C, 1e-5f);
  nnc_layernorm_fwd(y.gpu, mean.gpu, rstd.gpu, x.gpu, gain.gpu, bias.gpu, R, C, 1e-5f);
  close_all("layernorm_fwd y", y, FP32);
  close_all("layernorm_fwd mean", mean, FP32);
  close_all("layernorm_fwd rstd", rstd, FP32);
  nn_layernorm_bwd(dx.cpu, dgain.cpu, dbias.cpu, dy.cpu, x.cpu, mean.cpu, rstd.cpu, gain.cpu, R, C);
  nnc_layernorm_bwd(dx.gpu, dgain.gpu, dbias.gpu, dy.gpu, x.gpu, mean.gpu, rstd.gpu, gain.gpu, R, C);
  close_all("layernorm_bwd dx", dx, FP32);
  close_all("layernorm_bwd dgain", dgain, FP32);
  close_all("layernorm_bwd dbias", dbias, FP32);
  release();
}

TEST(cuda_softmax) {
  NEED_GPU();
  int R = 9, C = 37;
  pair x = uniform(R * C, -5, 5), mask = rnd(R * C), y = poison(R * C), dy = rnd(R * C),
       dx = rnd(R * C);
  for (int i = 0; i < R * C; i++) mask.cpu[i] = i / C == 2 ? 0 : mask.cpu[i] > -0.4f;
  nnc_to_device(mask.gpu, mask.cpu, (size_t)R * C * sizeof(float)); /* row 2 fully masked */
  nn_softmax_fwd(y.cpu, x.cpu, mask.cpu, R, C), nnc_softmax_fwd(y.gpu, x.gpu, mask.gpu, R, C);
  close_all("softmax_fwd masked", y, FP32);
  nn_softmax_bwd(dx.cpu, y.cpu, dy.cpu, R, C), nnc_softmax_bwd(dx.gpu, y.gpu, dy.gpu, R, C);
  close_all("softmax_bwd", dx, FP32);
  nn_softmax_fwd(y.cpu, x.cpu, NULL, R, C), nnc_softmax_fwd(y.gpu, x.gpu, NULL, R, C);
  close_all("softmax_fwd", y, FP32);
  release();
}

/* The decoder's log-softmax rows: into rows of a bigger block, with a
 * shortlist (-inf after W) and without one. */
TEST(cuda_log_softmax_rows) {
  NEED_GPU();
  enum { n = 5, V = 1201, R = 8 };
  int rows[n] = {6, 0, 2, 7, 3}, *drows = dev_ints(rows, n);
  for (int W = V; W >= 300; W -= V - 300) {
    pair x = uniform((size_t)n * W, -8, 8), out = poison((size_t)R * V);
    nn_log_softmax_rows(out.cpu, rows, x.cpu, n, W, V), nnc_log_softmax_rows(out.gpu, drows, x.gpu, n, W, V);
    for (int i = 0; i < n; i++) close_block("log_softmax_rows", at(out, (size_t)rows[i] * V), 1, V, V, FP32);
    pair all = poison((size_t)n * V);
    nn_log_softmax_rows(all.cpu, NULL, x.cpu, n, W, V), nnc_log_softmax_rows(all.gpu, NULL, x.gpu, n, W, V);
    close_all("log_softmax_rows, all rows", all, FP32);
  }
  release();
}

/* The search's candidates: the same picks in the same order as the CPU, ties
 * (values on a grid of 1/8) to the lower index, rows without a hypothesis skipped. */
TEST(cuda_topk_rows) {
  NEED_GPU();
  enum { n = 3, K = 4, V = 301, k2 = 8 };
  pair logp = uniform((size_t)n * K * V, -4, 0), base = uniform((size_t)n * K, -3, 0);
  for (size_t i = 0; i < logp.n; i++) logp.cpu[i] = roundf(logp.cpu[i] * 8) / 8;
  base.cpu[1] = base.cpu[5] = base.cpu[6] = -INFINITY;
  base.cpu[8] = base.cpu[9] = base.cpu[10] = base.cpu[11] = -INFINITY; /* sentence 2: none live */
  if (nnc_to_device(logp.gpu, logp.cpu, logp.n * sizeof(float)) || nnc_to_device(base.gpu, base.cpu, base.n * sizeof(float)))
    T_FAIL("upload: %s", nmt_errmsg());
  pair score = poison((size_t)n * k2);
  int index[n * k2], *dindex = dev_ints(index, (size_t)n * k2);
  nn_topk_rows(score.cpu, index, logp.cpu, base.cpu, n, K, V, 0, k2);
  nnc_topk_rows(score.gpu, dindex, logp.gpu, base.gpu, n, K, V, 0, k2);
  same_ints("topk_rows index", index, dindex, (size_t)n * k2);
  close_all("topk_rows score", score, 0);
  CHECK_INT(index[2 * k2], -1);
  release();
}

static void check_xent(float ls) {
  int R = 12, V = 1000, pad = 0, targets[12];
  for (int r = 0; r < R; r++) targets[r] = r == 3 || r == 7 ? pad : 1 + (r * 397) % (V - 1);
  int *dt = dev_ints(targets, R);
  pair logits = uniform(R * V, -8, 8), prob = poison(R * V), dlogits = rnd(R * V);
  long n_cpu = -1, n_gpu = -1;
  double l_cpu = nn_xent_fwd(prob.cpu, logits.cpu, targets, R, V, pad, ls, &n_cpu);
  double l_gpu = nnc_xent_fwd(prob.gpu, logits.gpu, dt, R, V, pad, ls, &n_gpu);
  CHECK_INT(n_gpu, n_cpu);
  CHECK_NEAR(l_gpu, l_cpu, FP32 * fabs(l_cpu));
  for (int r = 0; r < R; r++)
    if (targets[r] != pad) close_block("xent_fwd prob", at(prob, (size_t)r * V), 1, V, V, FP32);
  nn_xent_bwd(dlogits.cpu, prob.cpu, targets, R, V, pad, ls, 0.25f);
  nnc_xent_bwd(dlogits.gpu, prob.gpu, dt, R, V, pad, ls, 0.25f);
  close_all("xent_bwd", dlogits, FP32); /* pad rows untouched on both sides */
  release();
}

TEST(cuda_xent) {
  NEED_GPU();
  check_xent(0);
  check_xent(0.1f);
}

/* ---- dropout: the CPU's masks bit for bit ---- */

static void check_dropout(size_t n, uint64_t offset) {
  float p = 0.3f;
  uint64_t seed = 0x1234567890abcdefULL, stream = (5ULL << 32) | 2;
  pair x = rnd(n), y = poison(n), keep = poison(n), dy = rnd(n), dx = rnd(n);
  nn_dropout_fwd(y.cpu, keep.cpu, x.cpu, n, p, seed, stream, offset);
  nnc_dropout_fwd(y.gpu, keep.gpu, x.gpu, n, p, seed, stream, offset);
  float *gk = download(keep), *gy = download(y);
  if (!gk || !gy) return;
  CHECK(!memcmp(gk, keep.cpu, n * sizeof(float)));
  CHECK(!memcmp(gy, y.cpu, n * sizeof(float)));
  size_t dropped = 0;
  for (size_t i = 0; i < n; i++) dropped += keep.cpu[i] == 0;
  if (n > 100) CHECK(dropped > n / 5 && dropped < n / 2); /* p = 0.3 */
  nn_dropout_bwd(dx.cpu, keep.cpu, dy.cpu, n), nnc_dropout_bwd(dx.gpu, keep.gpu, dy.gpu, n);
  close_all("dropout_bwd", dx, FP32);
  release();
}

TEST(cuda_dropout_masks) {
  NEED_GPU();
  check_dropout(1003, 0);
  check_dropout(1003, 5); /* starts and ends inside a Philox block */
  check_dropout(2, 1);
  check_dropout(1003, (3ULL << 34) + 5); /* batch part 3 (nn/dropout.c) */
}

/* ---- recurrent cells ---- */

/* A step mask (B): every third sentence is padding. */
static pair step_mask(int B) {
  pair m = rnd(B);
  for (int b = 0; b < B; b++) m.cpu[b] = b % 3 != 2;
  nnc_to_device(m.gpu, m.cpu, (size_t)B * sizeof(float));
  return m;
}

/* Saved activations (B, width): padded rows keep none, so only the others count. */
static void close_kept_rows(const char *what, pair act, pair mask, int B, int width) {
  for (int b = 0; b < B; b++)
    if (mask.cpu[b] != 0) close_block(what, at(act, (size_t)b * width), 1, width, width, FP32);
}

static void check_lstm(bool with_gh, bool with_dgh) {
  int B = 6, H = 37;
  pair gx = uniform(B * 4 * H, -3, 3), gh = uniform(B * 4 * H, -3, 3), hp = rnd(B * H),
       cp = rnd(B * H), mask = step_mask(B), h = poison(B * H), c = poison(B * H),
       act = poison(B * 5 * H), dh = rnd(B * H), dc = rnd(B * H), dgx = rnd(B * 4 * H),
       dgh = rnd(B * 4 * H), dhp = rnd(B * H), dcp = rnd(B * H);
  nn_lstm_cell_fwd(h.cpu, c.cpu, act.cpu, gx.cpu, with_gh ? gh.cpu : NULL, hp.cpu, cp.cpu,
                   mask.cpu, B, H);
  nnc_lstm_cell_fwd(h.gpu, c.gpu, act.gpu, gx.gpu, with_gh ? gh.gpu : NULL, hp.gpu, cp.gpu,
                    mask.gpu, B, H);
  close_all("lstm_cell_fwd h", h, FP32);
  close_all("lstm_cell_fwd c", c, FP32);
  close_kept_rows("lstm_cell_fwd act", act, mask, B, 5 * H);
  nn_lstm_cell_bwd(dgx.cpu, with_dgh ? dgh.cpu : NULL, dhp.cpu, dcp.cpu, dh.cpu, dc.cpu, act.cpu,
                   c.cpu, cp.cpu, mask.cpu, B, H);
  nnc_lstm_cell_bwd(dgx.gpu, with_dgh ? dgh.gpu : NULL, dhp.gpu, dcp.gpu, dh.gpu, dc.gpu, act.gpu,
                    c.gpu, cp.gpu, mask.gpu, B, H);
  close_all("lstm_cell_bwd dgx", dgx, FP32);
  close_all("lstm_cell_bwd dgh", dgh, FP32);
  close_all("lstm_cell_bwd dh_prev", dhp, FP32);
  close_all("lstm_cell_bwd dc_prev", dcp, FP32);
  release();
}

TEST(cuda_lstm_cell) {
  NEED_GPU();
  check_lstm(true, true);
  check_lstm(false, false);
}

TEST(cuda_gru_cell) {
  NEED_GPU();
  int B = 6, H = 37;
  pair gx = uniform(B * 3 * H, -3, 3), gh = uniform(B * 3 * H, -3, 3), hp = rnd(B * H),
       mask = step_mask(B), h = poison(B * H), act = poison(B * 3 * H), dh = rnd(B * H),
       dgx = rnd(B * 3 * H), dgh = rnd(B * 3 * H), dhp = rnd(B * H);
  nn_gru_cell_fwd(h.cpu, act.cpu, gx.cpu, gh.cpu, hp.cpu, mask.cpu, B, H);
  nnc_gru_cell_fwd(h.gpu, act.gpu, gx.gpu, gh.gpu, hp.gpu, mask.gpu, B, H);
  close_all("gru_cell_fwd h", h, FP32);
  close_kept_rows("gru_cell_fwd act", act, mask, B, 3 * H);
  nn_gru_cell_bwd(dgx.cpu, dgh.cpu, dhp.cpu, dh.cpu, act.cpu, gh.cpu, hp.cpu, mask.cpu, B, H);
  nnc_gru_cell_bwd(dgx.gpu, dgh.gpu, dhp.gpu, dh.gpu, act.gpu, gh.gpu, hp.gpu, mask.gpu, B, H);
  close_all("gru_cell_bwd dgx", dgx, FP32);
  close_all("gru_cell_bwd dgh", dgh, FP32);
  close_all("gru_cell_bwd dh_prev", dhp, FP32);
  release();
}

TEST(cuda_atr_cell) {
  NEED_GPU();
  int B = 6, H = 37;
  pair q = uniform(B * H, -3, 3), p = uniform(B * H, -3, 3), hp = rnd(B * H), mask = step_mask(B),
       h = poison(B * H), gates = poison(B * 2 * H), dh = rnd(B * H), dq = rnd(B * H),
       dp = rnd(B * H), dhp = rnd(B * H);
  nn_atr_cell_fwd(h.cpu, gates.cpu, q.cpu, p.cpu, hp.cpu, mask.cpu, B, H);
  nnc_atr_cell_fwd(h.gpu, gates.gpu, q.gpu, p.gpu, hp.gpu, mask.gpu, B, H);
  close_all("atr_cell_fwd h", h, FP32);
  close_kept_rows("atr_cell_fwd gates", gates, mask, B, 2 * H);
  nn_atr_cell_bwd(dq.cpu, dp.cpu, dhp.cpu, dh.cpu, gates.cpu, q.cpu, hp.cpu, mask.cpu, B, H);
  nnc_atr_cell_bwd(dq.gpu, dp.gpu, dhp.gpu, dh.gpu, gates.gpu, q.gpu, hp.gpu, mask.gpu, B, H);
  close_all("atr_cell_bwd dq", dq, FP32);
  close_all("atr_cell_bwd dp", dp, FP32);
  close_all("atr_cell_bwd dh_prev", dhp, FP32);
  release();
}

TEST(cuda_lstm_peep_cell) {
  NEED_GPU();
  int B = 6, H = 37;
  pair gx = uniform(B * 4 * H, -3, 3), gh = uniform(B * 4 * H, -3, 3), peep = rnd(3 * H),
       hp = rnd(B * H), cp = rnd(B * H), mask = step_mask(B), h = poison(B * H), c = poison(B * H),
       act = poison(B * 5 * H), dh = rnd(B * H), dc = rnd(B * H), dgx = rnd(B * 4 * H),
       dgh = rnd(B * 4 * H), dpeep = rnd(3 * H), dhp = rnd(B * H), dcp = rnd(B * H);
  nn_lstm_peep_fwd(h.cpu, c.cpu, act.cpu, gx.cpu, gh.cpu, peep.cpu, hp.cpu, cp.cpu, mask.cpu, B, H);
  nnc_lstm_peep_fwd(h.gpu, c.gpu, act.gpu, gx.gpu, gh.gpu, peep.gpu, hp.gpu, cp.gpu, mask.gpu, B, H);
  close_all("lstm_peep_fwd h", h, FP32);
  close_all("lstm_peep_fwd c", c, FP32);
  close_kept_rows("lstm_peep_fwd act", act, mask, B, 5 * H);
  nn_lstm_peep_bwd(dgx.cpu, dgh.cpu, dpeep.cpu, dhp.cpu, dcp.cpu, dh.cpu, dc.cpu, act.cpu, peep.cpu,
                   c.cpu, cp.cpu, mask.cpu, B, H);
  nnc_lstm_peep_bwd(dgx.gpu, dgh.gpu, dpeep.gpu, dhp.gpu, dcp.gpu, dh.gpu, dc.gpu, act.gpu, peep.gpu,
                    c.gpu, cp.gpu, mask.gpu, B, H);
  close_all("lstm_peep_bwd dgx", dgx, FP32);
  close_all("lstm_peep_bwd dgh", dgh, FP32);
  close_all("lstm_peep_bwd dpeep", dpeep, FP32);
  close_all("lstm_peep_bwd dh_prev", dhp, FP32);
  close_all("lstm_peep_bwd dc_prev", dcp, FP32);
  release();
}

/* ---- the model families' kernels: SRU scan and highway, RHN, max-pooling ---- */

/* A time-major mask (S*B) for sentences of lengths len (B): padding at the end. */
static pair seq_mask(const int *len, int S, int B) {
  pair m = rnd((size_t)S * B);
  for (int i = 0; i < S * B; i++) m.cpu[i] = i / B < len[i % B];
  nnc_to_device(m.gpu, m.cpu, (size_t)S * B * sizeof(float));
  return m;
}

/* Hf units forward, the rest backward; G wider than the 2H columns the scan reads. */
static void check_wscan(bool with_c0, bool masked, int Hf) {
  int T = 9, B = 5, H = 37, ldg = 3 * H + 5, len[5] = {9, 4, 7, 1, 6};
  size_t n = (size_t)T * B * H;
  pair G = uniform((size_t)T * B * ldg, -3, 3), c0 = rnd(B * H), mask = seq_mask(len, T, B),
       c = poison(n), sg = poison(n), work = poison(B * H), dc = rnd(n),
       dG = rnd((size_t)T * B * ldg), dc0 = rnd(B * H);
  const float *c0c = with_c0 ? c0.cpu : NULL, *c0g = with_c0 ? c0.gpu : NULL;
  const float *mc = masked ? mask.cpu : NULL, *mg = masked ? mask.gpu : NULL;
  nn_wscan_fwd(c.cpu, sg.cpu, G.cpu, ldg, c0c, mc, T, B, H, Hf);
  nnc_wscan_fwd(c.gpu, sg.gpu, G.gpu, ldg, c0g, mg, T, B, H, Hf);
  close_all("wscan_fwd c", c, FP32);
  close_all("wscan_fwd sg", sg, FP32);
  nn_wscan_bwd(dG.cpu, with_c0 ? dc0.cpu : NULL, work.cpu, dc.cpu, c.cpu, sg.cpu, G.cpu, ldg, c0c,
               mc, T, B, H, Hf);
  nnc_wscan_bwd(dG.gpu, with_c0 ? dc0.gpu : NULL, work.gpu, dc.gpu, c.gpu, sg.gpu, G.gpu, ldg, c0g,
                mg, T, B, H, Hf);
  close_all("wscan_bwd dG", dG, FP32);
  close_all("wscan_bwd dc0", dc0, FP32);
  release();
}

TEST(cuda_wscan) {
  NEED_GPU();
  check_wscan(true, true, 18); /* bidirectional, state carried through padding */
  check_wscan(false, false, 37); /* forward only, from zero */
  check_wscan(true, true, 0);  /* backward only */
}

TEST(cuda_highway) {
  NEED_GPU();
  int R = 45, H = 37, ldz = 3 * H + 5, z0 = 2 * H; /* SRU's gate columns after x̃ and g */
  pair Z = uniform((size_t)R * ldz, -4, 4), a = rnd(R * H), x = rnd(R * H), y = poison(R * H),
       sz = poison(R * H), dy = rnd(R * H), dZ = rnd((size_t)R * ldz), da = rnd(R * H),
       dx = rnd(R * H);
  nn_highway_fwd(y.cpu, sz.cpu, Z.cpu + z0, ldz, a.cpu, x.cpu, R, H);
  nnc_highway_fwd(y.gpu, sz.gpu, Z.gpu + z0, ldz, a.gpu, x.gpu, R, H);
  close_all("highway_fwd y", y, FP32);
  close_all("highway_fwd sz", sz, FP32);
  nn_highway_bwd(dZ.cpu + z0, ldz, da.cpu, dx.cpu, dy.cpu, sz.cpu, a.cpu, x.cpu, R, H);
  nnc_highway_bwd(dZ.gpu + z0, ldz, da.gpu, dx.gpu, dy.gpu, sz.gpu, a.gpu, x.gpu, R, H);
  close_all("highway_bwd dZ", dZ, FP32); /* the other columns untouched */
  close_all("highway_bwd da", da, FP32);
  close_all("highway_bwd dx", dx, FP32);
  nn_highway_bwd(NULL, ldz, NULL, dx.cpu, dy.cpu, sz.cpu, a.cpu, x.cpu, R, H);
  nnc_highway_bwd(NULL, ldz, NULL, dx.gpu, dy.gpu, sz.gpu, a.gpu, x.gpu, R, H);
  close_all("highway_bwd dx alone", dx, FP32);
  release();
}

/* with_extra: the pre-activations are z + z2 + bias (micro-step 1 has no bias
 * of its own, the others no z2; both together check the sum and every +=). */
static void check_rhn(bool coupled, bool with_extra) {
  int B = 6, H = 37, G = nn_rhn_gates(coupled) * H;
  pair z = uniform(B * G, -3, 3), z2 = uniform(B * G, -3, 3), bias = rnd(G), sp = rnd(B * H),
       mask = step_mask(B), s = poison(B * H), act = poison(B * G), ds = rnd(B * H),
       dz = rnd(B * G), dz2 = rnd(B * G), dbias = rnd(G), dsp = rnd(B * H);
  const float *z2c = with_extra ? z2.cpu : NULL, *z2g = with_extra ? z2.gpu : NULL;
  const float *bc = with_extra ? bias.cpu : NULL, *bg = with_extra ? bias.gpu : NULL;
  nn_rhn_cell_fwd(s.cpu, act.cpu, z.cpu, z2c, bc, sp.cpu, mask.cpu, B, H, coupled);
  nnc_rhn_cell_fwd(s.gpu, act.gpu, z.gpu, z2g, bg, sp.gpu, mask.gpu, B, H, coupled);
  close_all("rhn_cell_fwd s", s, FP32);
  close_kept_rows("rhn_cell_fwd act", act, mask, B, G);
  nn_rhn_cell_bwd(dz.cpu, with_extra ? dz2.cpu : NULL, with_extra ? dbias.cpu : NULL, dsp.cpu,
                  ds.cpu, act.cpu, sp.cpu, mask.cpu, B, H, coupled);
  nnc_rhn_cell_bwd(dz.gpu, with_extra ? dz2.gpu : NULL, with_extra ? dbias.gpu : NULL, dsp.gpu,
                   ds.gpu, act.gpu, sp.gpu, mask.gpu, B, H, coupled);
  close_all("rhn_cell_bwd dz", dz, FP32);
  close_all("rhn_cell_bwd dz2", dz2, FP32);
  close_all("rhn_cell_bwd dbias", dbias, FP32);
  close_all("rhn_cell_bwd ds_prev", dsp, FP32);
  release();
}

TEST(cuda_rhn_cell) {
  NEED_GPU();
  check_rhn(false, true);
  check_rhn(true, true);
  check_rhn(false, false);
}

static void check_maxpool(bool masked) {
  int S = 7, B = 5, F = 37, len[5] = {7, 3, 0, 1, 6}; /* sentence 2 empty */
  pair X = uniform((size_t)S * B * F, -2, 2), mask = seq_mask(len, S, B), y = poison(B * F),
       dy = rnd(B * F), dX = rnd((size_t)S * B * F);
  for (int f = 0; f < F; f++) /* sentence 0 ties at positions 0 and 3: the first wins */
    X.cpu[f] = X.cpu[(size_t)3 * B * F + f] = 3;
  nnc_to_device(X.gpu, X.cpu, (size_t)S * B * F * sizeof(float));
  int *arg = host((size_t)B * F * sizeof *arg);
  for (int i = 0; i < B * F; i++) arg[i] = -7;
  int *darg = dev_ints(arg, (size_t)B * F);
  nn_maxpool_time_fwd(y.cpu, arg, X.cpu, masked ? mask.cpu : NULL, S, B, F);
  nnc_maxpool_time_fwd(y.gpu, darg, X.gpu, masked ? mask.gpu : NULL, S, B, F);
  close_all("maxpool_time_fwd y", y, FP32);
  same_ints("maxpool_time_fwd arg", arg, darg, (size_t)B * F);
  nn_maxpool_time_bwd(dX.cpu, arg, dy.cpu, B, F), nnc_maxpool_time_bwd(dX.gpu, darg, dy.gpu, B, F);
  close_all("maxpool_time_bwd", dX, FP32);
  release();
}

TEST(cuda_maxpool_time) {
  NEED_GPU();
  check_maxpool(true);
  check_maxpool(false);
}

/* ---- attention ---- */

TEST(cuda_attn) {
  NEED_GPU();
  int B = 5, S = 7, F = 33, len[5] = {7, 3, 5, 1, 6};
  int *dlen = dev_ints(len, B);
  pair q = rnd(B * F), K = rnd(S * B * F), v = rnd(F), score = poison(B * S), t = poison(B * S * F),
       dscore = rnd(B * S), dq = rnd(B * F), dK = rnd(S * B * F), dv = rnd(F);
  nn_attn_dot_fwd(score.cpu, q.cpu, K.cpu, B, S, F), nnc_attn_dot_fwd(score.gpu, q.gpu, K.gpu, B, S, F);
  close_all("attn_dot_fwd", score, FP32);
  nn_attn_dot_bwd(dq.cpu, dK.cpu, dscore.cpu, q.cpu, K.cpu, B, S, F);
  nnc_attn_dot_bwd(dq.gpu, dK.gpu, dscore.gpu, q.gpu, K.gpu, B, S, F);
  close_all("attn_dot_bwd dq", dq, FP32);
  close_all("attn_dot_bwd dK", dK, FP32);

  nn_attn_mlp_fwd(score.cpu, t.cpu, q.cpu, K.cpu, v.cpu, B, S, F);
  nnc_attn_mlp_fwd(score.gpu, t.gpu, q.gpu, K.gpu, v.gpu, B, S, F);
  close_all("attn_mlp_fwd score", score, FP32);
  close_all("attn_mlp_fwd t", t, FP32);
  nn_attn_mlp_bwd(dq.cpu, dK.cpu, dv.cpu, dscore.cpu, t.cpu, v.cpu, B, S, F);
  nnc_attn_mlp_bwd(dq.gpu, dK.gpu, dv.gpu, dscore.gpu, t.gpu, v.gpu, B, S, F);
  close_all("attn_mlp_bwd dq", dq, FP32);
  close_all("attn_mlp_bwd dK", dK, FP32);
  close_all("attn_mlp_bwd dv", dv, FP32);

  pair a = uniform(B * S, 0, 1), ctx = poison(B * F), dctx = rnd(B * F), da = rnd(B * S);
  nn_attn_context_fwd(ctx.cpu, a.cpu, K.cpu, B, S, F);
  nnc_attn_context_fwd(ctx.gpu, a.gpu, K.gpu, B, S, F);
  close_all("attn_context_fwd", ctx, FP32);
  nn_attn_context_bwd(da.cpu, dK.cpu, dctx.cpu, a.cpu, K.cpu, B, S, F);
  nnc_attn_context_bwd(da.gpu, dK.gpu, dctx.gpu, a.gpu, K.gpu, B, S, F);
  close_all("attn_context_bwd da", da, FP32);
  close_all("attn_context_bwd dV", dK, FP32);

  pair sig = uniform(B, 0, 1), w = poison(B * S), dw = rnd(B * S), dsig = rnd(B);
  nn_attn_local_fwd(w.cpu, a.cpu, sig.cpu, len, B, S, 2);
  nnc_attn_local_fwd(w.gpu, a.gpu, sig.gpu, dlen, B, S, 2);
  close_all("attn_local_fwd", w, FP32);
  nn_attn_local_bwd(da.cpu, dsig.cpu, dw.cpu, a.cpu, sig.cpu, len, B, S, 2);
  nnc_attn_local_bwd(da.gpu, dsig.gpu, dw.gpu, a.gpu, sig.gpu, dlen, B, S, 2);
  close_all("attn_local_bwd da", da, FP32);
  close_all("attn_local_bwd dsig", dsig, FP32);
  release();
}

/* SR-NMT's context for all decoder steps at once: T steps of B sentences. */
TEST(cuda_attn_context_seq) {
  NEED_GPU();
  int T = 4, B = 5, S = 7, F = 33;
  float scale = 0.7f;
  pair a = uniform(T * B * S, 0, 1), V = rnd(S * B * F), ctx = poison(T * B * F),
       dctx = rnd(T * B * F), da = rnd(T * B * S), dV = rnd(S * B * F);
  nn_attn_context_seq_fwd(ctx.cpu, a.cpu, V.cpu, scale, T, B, S, F);
  nnc_attn_context_seq_fwd(ctx.gpu, a.gpu, V.gpu, scale, T, B, S, F);
  close_all("attn_context_seq_fwd", ctx, FP32);
  nn_attn_context_seq_bwd(da.cpu, dV.cpu, dctx.cpu, a.cpu, V.cpu, scale, T, B, S, F);
  nnc_attn_context_seq_bwd(da.gpu, dV.gpu, dctx.gpu, a.gpu, V.gpu, scale, T, B, S, F);
  close_all("attn_context_seq_bwd da", da, FP32);
  close_all("attn_context_seq_bwd dV", dV, FP32);
  release();
}

/* ---- optimizer loops ---- */

TEST(cuda_optim) {
  NEED_GPU();
  size_t n = 100003;
  pair g = rnd(n), w = rnd(n), m = rnd(n), v = uniform(n, 0, 1);
  double want = 0;
  for (size_t i = 0; i < n; i++) want += (double)g.cpu[i] * g.cpu[i];
  CHECK_NEAR(nnc_sumsq(g.gpu, n), want, 1e-9 * want);
  nn_vadam(w.cpu, m.cpu, v.cpu, g.cpu, n, 0.9f, 0.999f, 1e-3f, 1e-8f);
  nnc_vadam(w.gpu, m.gpu, v.gpu, g.gpu, n, 0.9f, 0.999f, 1e-3f, 1e-8f);
  close_all("adam w", w, FP32);
  close_all("adam m", m, FP32);
  close_all("adam v", v, FP32);
  CHECK_NEAR(nnc_sumsq(g.gpu, n), nn_sumsq(g.cpu, n), 1e-9 * want);
  nn_lerp(w.cpu, m.cpu, 0.25f, n), nnc_lerp(w.gpu, m.gpu, 0.25f, n);
  close_all("lerp", w, FP32);
  release();
}

TEST(cuda_runtime_errors_surface) {
  NEED_GPU();
  void *p = NULL;
  CHECK_INT(nnc_alloc(&p, (size_t)1 << 62), NMT_EIO); /* out of memory is reported, not sticky */
  CHECK(strstr(nmt_errmsg(), "out of GPU memory") != NULL);
  CHECK_INT(nnc_sync(), NMT_OK);
}

/* ---- device selection in the CUDA build (runs with or without a GPU) ---- */

TEST(cuda_device_open) {
  nmt_device d;
  char notice[300] = "x";
  CHECK(nmt_device_cuda_built());
  CHECK_INT(nmt_device_parse("cuda:0", &d), NMT_OK);
  CHECK_INT(nmt_device_open(&d, notice, sizeof notice), NMT_OK);
  if (d.kind == NMT_DEVICE_CUDA) {
    CHECK_STR(notice, "");
    CHECK_INT(nmt_device_parse("cuda:999", &d), NMT_OK);
    CHECK_INT(nmt_device_open(&d, notice, sizeof notice), NMT_EUSAGE);
    CHECK(strstr(nmt_errmsg(), "CUDA device 999 does not exist") != NULL);
  } else { /* "no CUDA device found (cudaErrorNoDevice); running on CPU" or similar */
    CHECK(!strncmp(notice, "no CUDA device found", 20));
    CHECK(strstr(notice, "; running on CPU") != NULL);
    fprintf(stderr, "    (fallback notice: %s)\n", notice);
  }
  nmt_device_close(&d);
  gpu_closed(); /* a later case opens it again */
}

/* Under mpirun plain "cuda" is the local rank's GPU, modulo the GPUs; "cuda:N" stays N. */
TEST(cuda_device_per_rank) {
  nmt_device d;
  char notice[300];
  int count = nnc_count();
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "5", 1);
  CHECK_INT(nmt_device_parse("cuda", &d), NMT_OK);
  CHECK_INT(nmt_device_open(&d, notice, sizeof notice), NMT_OK);
  if (d.kind == NMT_DEVICE_CUDA) CHECK_INT(d.index, 5 % count);
  nmt_device_close(&d);
  CHECK_INT(nmt_device_parse("cuda:0", &d), NMT_OK);
  CHECK_INT(nmt_device_open(&d, notice, sizeof notice), NMT_OK);
  if (d.kind == NMT_DEVICE_CUDA) CHECK_INT(d.index, 0);
  nmt_device_close(&d);
  unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
  gpu_closed();
}

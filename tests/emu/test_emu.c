/* The CUDA emulator catches typical GPU bugs (planted.cu): a missing barrier, an
 * out-of-bounds write, a use after free, a copy in the wrong direction, a GEMM
 * without the row-major operand swap, a host read of device memory, a kernel
 * given a host array, a divergent
 * barrier, a shuffle with absent lanes, launches over the limits, and kernel
 * constructs its build cannot handle. A bug that leaves
 * the device faulted (sticky, as on a GPU) or kills the process runs in a child
 * whose stderr is checked. Built only into nmt-tests-emu (make emu). */
#include "emu_control.h"
#include "base/err.h"
#include "nn/cuda/nn_cuda.h"
#include "nn/backend.h"
#include "nn/kernels.h"
#include "planted.h"
#include "test.h"
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static float *dev_floats(const float *h, size_t n) {
  void *d = NULL;
  if (nnc_alloc(&d, n * sizeof(float)) || (h && nnc_to_device(d, h, n * sizeof(float))))
    T_FAIL("device buffer: %s", nmt_errmsg());
  return d;
}

/* Elements of the device buffer gpu (n) further than 1e-5 relative from cpu; NaN counts. */
static size_t mismatches(const float *gpu, const float *cpu, size_t n) {
  float *g = malloc(n * sizeof *g);
  size_t bad = 0;
  if (!g || nnc_to_host(g, gpu, n * sizeof *g)) bad = n;
  for (size_t i = 0; i < n && bad < n; i++)
    bad += !(fabs(g[i] - cpu[i]) <= 1e-5 * fmax(1, fabs(cpu[i])));
  free(g);
  return bad;
}

/* Runs fn in a child with its stderr captured in err (n bytes); returns the wait status. */
static int in_child(void (*fn)(void), char *err, size_t n) {
  int fd[2];
  if (pipe(fd)) return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    if (nnc_init(0)) _exit(99); /* a fresh device state */
    fn();
    _exit(nnc_sync() == NMT_OK ? 0 : 3);
  }
  close(fd[1]);
  size_t len = 0;
  ssize_t k;
  while (len + 1 < n && (k = read(fd[0], err + len, n - 1 - len)) > 0) len += (size_t)k;
  err[len] = 0;
  close(fd[0]);
  int st = -1;
  waitpid(pid, &st, 0);
  return st;
}

static bool matches(const char *text, const char *pattern) {
  regex_t re;
  if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB)) {
    T_FAIL("bad regex %s", pattern);
    return false;
  }
  bool m = !regexec(&re, text, 0, NULL, 0);
  regfree(&re);
  return m;
}

/* The child said something matching pattern and, when `fails`, failed (a non-zero exit
 * or a signal). */
static void expect_said(const char *bug, void (*fn)(void), const char *pattern, bool fails) {
  static char err[16384];
  int st = in_child(fn, err, sizeof err);
  if ((fails && st == 0) || !matches(err, pattern))
    T_FAIL("%s not caught (wait status 0x%x), stderr: %s", bug, st, err);
  else { /* its first line of ours or of a sanitizer */
    const char *line = strstr(err, "WARNING: ");
    if (!line) line = strstr(err, "emu: ");
    if (!line) line = err;
    fprintf(stderr, "    (%s: %.*s)\n", bug, (int)strcspn(line, "\n"), line);
  }
}
static void expect_caught(const char *bug, void (*fn)(void), const char *pattern) {
  expect_said(bug, fn, pattern, true);
}

#ifndef __SANITIZE_THREAD__ /* there the race is reported (emu_tsan_missing_barrier) */
TEST(emu_missing_barrier) {
  CHECK_INT(nnc_init(0), NMT_OK);
  int rows = 20, C = 45;
  float x[20 * 45], want[45] = {0};
  for (int i = 0; i < rows * C; i++) x[i] = (float)(i % 7) - 3;
  nn_bias_bwd(NULL, want, x, rows, C);
  float *dx = dev_floats(x, (size_t)rows * C), *out = dev_floats(NULL, C);
  const char *schedules[] = {"lockstep", "warp", "reverse"};
  size_t bad[3];
  for (int s = 0; s < 3; s++) {
    CHECK(emu_set_schedule(schedules[s]));
    nnc_zero(out, C * sizeof(float));
    nnc_bias_bwd(NULL, out, dx, rows, C); /* the real kernel is right under every schedule */
    CHECK_INT(mismatches(out, want, C), 0);
    planted_col_sums_no_barrier(out, dx, rows, C);
    CHECK_INT(nnc_sync(), NMT_OK);
    bad[s] = mismatches(out, want, C);
  }
  /* Readers (thread row 0) before writers: lockstep and warp by warp see the NaN of
   * fresh shared memory; in reverse order the writers go first and hide the race. */
  CHECK(bad[0] > 0 && bad[1] > 0);
  CHECK_INT(bad[2], 0);
  fprintf(stderr, "    (wrong sums: lockstep %zu, warp %zu, reverse %zu of %d)\n", bad[0], bad[1], bad[2], C);
  CHECK(emu_set_schedule(NULL));
  CHECK(!emu_set_schedule("random"));
  nnc_free(dx), nnc_free(out);
}
#endif

#ifdef __SANITIZE_THREAD__
/* Under ThreadSanitizer the missing barrier is a data race between two CUDA threads even
 * in the order that gives the right sums. */
static void race_in_right_order(void) {
  float x[20 * 45];
  for (int i = 0; i < 20 * 45; i++) x[i] = 1;
  emu_set_schedule("reverse");
  planted_col_sums_no_barrier(dev_floats(NULL, 45), dev_floats(x, 20 * 45), 20, 45);
}

TEST(emu_tsan_missing_barrier) {
  expect_said("race under the reverse schedule", race_in_right_order,
              "WARNING: ThreadSanitizer: data race.*col_sums_no_barrier", false);
}
#endif

static void fill_past_end(void) {
  emu_set_guard(true);
  float *y = dev_floats(NULL, 1024);
  planted_fill_past_end(y, 1024);
}

TEST(emu_out_of_bounds_write) {
  expect_caught("out-of-bounds write", fill_past_end,
                "out-of-bounds access to device memory at 0x[0-9a-f]+: 0 bytes past the end of "
                "the 4096-byte allocation");
}

static void host_reads_device(void) {
  emu_set_guard(true);
  float h[100] = {1}, *y = dev_floats(h, 100);
  fprintf(stderr, "read %g\n", *(volatile float *)y); /* the bug: no nnc_to_host */
}

TEST(emu_host_reads_device_memory) {
  expect_caught("host read of device memory", host_reads_device,
                "host code touched device memory at 0x[0-9a-f]+: byte 0 of the 400-byte allocation");
}

/* The engine's kernel rows (the backend table) given a host array, which a GPU
 * cannot read: on the emulator, where kernels run on the host, the table checks. */
static void kernel_gets_host_array(void) {
  float h[64] = {0}, *y = dev_floats(NULL, 64);
  nn_cuda_backend.scale_fwd(y, h, 2, 64); /* the bug: h was never copied to the device */
}

TEST(emu_kernel_given_host_array) {
  expect_caught("a kernel given a host array", kernel_gets_host_array,
                "nnc_scale_fwd: argument 2 \\(0x[0-9a-f]+\\) is not device memory");
}

static void use_after_free(void) {
  emu_set_guard(true);
  float *y = dev_floats(NULL, 256);
  nnc_free(y);
  nnc_scale_fwd(y, y, 2, 256); /* the bug: y was freed */
}

TEST(emu_use_after_free) {
  expect_caught("use after cudaFree", use_after_free,
                "use after cudaFree of device memory at 0x[0-9a-f]+: byte 0 of the freed "
                "1024-byte allocation at 0x[0-9a-f]+, in nnc_each_kernel");
}

/* A copy whose direction is swapped: the host buffer named as the device one. */
TEST(emu_copy_direction) {
  CHECK_INT(nnc_init(0), NMT_OK);
  float h[8] = {0}, *d = dev_floats(h, 8);
  CHECK_INT(nnc_to_device(h, d, sizeof h), NMT_EIO);
  CHECK(strstr(nmt_errmsg(), "copy to device: invalid argument") != NULL);
  CHECK_INT(nnc_init(0), NMT_OK);
  nnc_free(d);
}

/* Row-major operands given to column-major cuBLAS unswapped: wrong shapes break
 * cuBLAS's leading-dimension rules, square ones give B·A instead of A·B. */
TEST(emu_gemm_operand_swap) {
  CHECK_INT(nnc_init(0), NMT_OK);
  enum { M = 37, N = 29, K = 45, S = 16 };
  static float A[M * K], B[K * N], C[M * N];
  for (int i = 0; i < M * K; i++) A[i] = (float)(i % 11) / 11 - 0.5f;
  for (int i = 0; i < K * N; i++) B[i] = (float)(i % 13) / 13 - 0.5f;
  float *dA = dev_floats(A, M * K), *dB = dev_floats(B, K * N), *dC = dev_floats(NULL, M * N);
  planted_gemm_no_swap(M, N, K, dA, K, dB, N, dC, N); /* ldb = N = 29 < K = 45 */
  CHECK_INT(nnc_sync(), NMT_EIO);
  CHECK(strstr(nmt_errmsg(), "cuBLAS error in planted gemm: CUBLAS_STATUS_INVALID_VALUE") != NULL);

  CHECK_INT(nnc_init(0), NMT_OK); /* clears the recorded error */
  nn_gemm(false, false, S, S, S, 1, A, S, B, S, 0, C, S);
  nnc_gemm(false, false, S, S, S, 1, dA, S, dB, S, 0, dC, S);
  CHECK_INT(mismatches(dC, C, S * S), 0);
  planted_gemm_no_swap(S, S, S, dA, S, dB, S, dC, S);
  CHECK_INT(nnc_sync(), NMT_OK);
  CHECK(mismatches(dC, C, S * S) > S * S / 2);
  nnc_free(dA), nnc_free(dB), nnc_free(dC);
}

static void divergent_barrier(void) { planted_divergent_barrier(dev_floats(NULL, 64)); }
static void partial_warp(void) { planted_partial_warp(dev_floats(NULL, 1)); }
static void big_block(void) { planted_launch(1, 2048); }
static void tall_grid(void) { planted_launch(70000, 32); }
static void big_shared(void) { planted_big_shared(dev_floats(NULL, 1)); }

TEST(emu_divergent_barrier) {
  expect_caught("divergent barrier", divergent_barrier,
                "kernel divergent_barrier \\(tests/emu/planted.cu:[0-9]+\\), block \\(0,0,0\\): "
                "__syncthreads reached by 32 of 64 threads \\(thread \\(1,0,0\\) had exited\\)");
  expect_caught("shuffle with absent lanes", partial_warp,
                "warp 1: shuffle with mask 0xffffffff names lane 16, which does not exist");
}

TEST(emu_launch_limits) {
  expect_caught("2048-thread block", big_block, "more than 1024 threads in a block");
  expect_caught("grid y of 70000", tall_grid, "a grid dimension over its limit");
  expect_caught("52,000 bytes of shared memory", big_shared,
                "52000 bytes of shared memory \\(declaration 1 of the block\\), more than the 49152 bytes");
}

/* A launch or a __shared__ the rewrite cannot handle stops the build. */
TEST(emu_rewrite_rejects) {
  const char *out = t_tmp("x.cu");
  CHECK_INT(t_sh("printf '__global__ void k(float *y) {\\n  extern __shared__ float s[];\\n}\\n' > %s.in && "
                 "perl emu/rewrite.pl %s.in %s 2>%s.err", out, out, out, out), 1);
  CHECK_INT(t_sh("grep -q 'x.cu.in:2: the CUDA emulator does not handle this __shared__' %s.err", out), 0);
  CHECK_INT(t_sh("printf 'void f() { k<<<1, 32>>>; }\\n' > %s.in && "
                 "perl emu/rewrite.pl %s.in %s 2>%s.err", out, out, out, out), 1);
  CHECK_INT(t_sh("grep -q 'does not handle this <<<' %s.err && test ! -e %s", out, out), 0);
}

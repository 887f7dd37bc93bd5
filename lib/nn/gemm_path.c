/* The GEMM engine and the line that names it (nn/gemm_path.h). */
#include "nn/gemm_path.h"
#include "nn/qgemm.h"
#include "nn/sgemm_onednn.h"
#include "nn/vmath.h"
#include <cblas.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static const char *const names[NN_GEMM_ENGINES] = {"openblas", "nmt", "onednn"};

const char *nn_gemm_engine_name(nn_gemm_engine e) { return names[e]; }

static bool has(const char *feature) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  /* __builtin_cpu_supports wants a literal: the features nmt chooses by */
  if (!strcmp(feature, "avx2")) return __builtin_cpu_supports("avx2");
  if (!strcmp(feature, "fma")) return __builtin_cpu_supports("fma");
  if (!strcmp(feature, "avx512f")) return __builtin_cpu_supports("avx512f");
  if (!strcmp(feature, "avx512bw")) return __builtin_cpu_supports("avx512bw");
  if (!strcmp(feature, "avx512vl")) return __builtin_cpu_supports("avx512vl");
  if (!strcmp(feature, "avx512vnni")) return __builtin_cpu_supports("avx512vnni");
  /* from CPUID itself: clang 14's builtin does not know these two */
  unsigned a, b, c, d;
  if (!strcmp(feature, "avx512bf16")) return __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 5 & 1);
  if (!strcmp(feature, "amx-tile")) return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d >> 24 & 1);
#endif
  (void)feature;
  return false;
}

/* Whether this build and core can run engine e. */
static bool runs(nn_gemm_engine e) {
  if (e == NN_GEMM_NMT) return has("avx2") && has("fma");
  return e < NN_GEMM_ENGINES;
}

static nn_gemm_engine used = NN_GEMM_OPENBLAS;

bool nn_gemm_avx2_allowed(void) { return nn_vmath_used()->lanes >= 8 && runs(NN_GEMM_NMT); }

nn_gemm_engine nn_gemm_engine_used(void) { return used; }

/* After the vector width (nn/vmath.c's constructor, priority 200), which
 * NMT_ISA may have lowered: the engine follows that width unless NMT_GEMM says. */
__attribute__((constructor(210))) static void choose_engine(void) {
  int lanes = nn_vmath_used()->lanes;
  used = lanes >= 16 ? NN_GEMM_ONEDNN : nn_gemm_avx2_allowed() ? NN_GEMM_NMT : NN_GEMM_OPENBLAS;
  const char *want = getenv("NMT_GEMM");
  if (!want || !*want) return;
  for (int e = 0; e < NN_GEMM_ENGINES; e++)
    if (!strcmp(want, names[e]) && runs((nn_gemm_engine)e)) {
      used = (nn_gemm_engine)e;
      return;
    }
  fprintf(stderr, "nmt: NMT_GEMM=%s is not openblas, nmt or onednn that this core runs; using %s\n",
          want, names[used]);
}

const char *nn_cpu_line(void) {
  static char line[160];
  if (line[0]) return line;
  char vendor[13] = "unknown";
  unsigned family = 0, model = 0;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    memcpy(vendor, &b, 4), memcpy(vendor + 4, &d, 4), memcpy(vendor + 8, &c, 4);
    vendor[12] = 0;
  }
  if (__get_cpuid(1, &a, &b, &c, &d)) { /* the displayed family and model (Intel SDM vol. 2A, CPUID) */
    family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
    if (family == 0xf) family += (a >> 20) & 0xff;
    if (family == 0x6 || family >= 0xf) model += ((a >> 16) & 0xf) << 4;
  }
#endif
  int n = snprintf(line, sizeof line, "%s family %u model %u:", vendor, family, model);
  static const char *const features[] = {"avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512vnni",
                                         "avx512bf16", "amx-tile"};
  bool any = false;
  for (size_t i = 0; i < sizeof features / sizeof *features; i++)
    if (has(features[i]) && n < (int)sizeof line)
      n += snprintf(line + n, sizeof line - (size_t)n, " %s", features[i]), any = true;
  if (!any && n < (int)sizeof line) snprintf(line + n, sizeof line - (size_t)n, " sse only");
  return line;
}

const char *nn_gemm_path_line(void) {
  static char line[320];
  if (line[0]) return line;
  const char *how[NN_GEMM_ENGINES] = {"", " (AVX2+FMA panels)", " (its JIT's choice by CPUID)"};
  if (used == NN_GEMM_ONEDNN && !nn_sgemm_onednn_loaded()) how[used] = " (libdnnl.so.2 missing: OpenBLAS's sgemm)";
  const nn_vmath *v = nn_vmath_used();
  const char *int8 = nn_qgemm_vnni() ? "avx512 vnni" : nn_qgemm_avx2() ? "avx2" : "portable";
  snprintf(line, sizeof line, "GEMM %s%s, int8 %s, vector math %s (%d lanes), OpenBLAS core %s; CPU %s",
           names[used], how[used], int8, v->name, v->lanes, openblas_get_corename(), nn_cpu_line());
  return line;
}

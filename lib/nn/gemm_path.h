/* Which code multiplies float matrices on this CPU, chosen once at start-up
 * from what the core can do (CPUID features, never its model number, so a core
 * OpenBLAS's model table does not know is no slower):
 *   AVX-512F           oneDNN's dnnl_sgemm (its JIT picks avx512_core, _vnni,
 *                      _bf16 or AMX from CPUID itself)
 *   AVX2 + FMA         nmt's own panels (nn/pgemm_avx2.c) for every shape
 *   otherwise          OpenBLAS's sgemm, the reference path
 * NMT_ISA=sse|avx2|avx512 forces a lower width for this and for the vector math
 * (nn/vmath.h); NMT_GEMM=openblas|nmt|onednn forces the engine (tests and
 * benches run each one the host can). OPENBLAS_CORETYPE governs only OpenBLAS's
 * own kernels. Nothing here changes the environment, so the choice is the same
 * inside a library loaded by another program. */
#ifndef NMT_NN_GEMM_PATH_H
#define NMT_NN_GEMM_PATH_H
#include <stdbool.h>

typedef enum { NN_GEMM_OPENBLAS, NN_GEMM_NMT, NN_GEMM_ONEDNN, NN_GEMM_ENGINES } nn_gemm_engine;

/* The engine the CPU rows use. */
nn_gemm_engine nn_gemm_engine_used(void);
/* Whether nmt's own AVX2 + FMA code may run: the core has both and NMT_ISA
 * leaves 8 lanes or more. */
bool nn_gemm_avx2_allowed(void);
/* NMT_GEMM's spelling of e: "openblas", "nmt", "onednn". */
const char *nn_gemm_engine_name(nn_gemm_engine e);
/* One line for logs and --version: the engine and its instructions, the vector
 * math's width, OpenBLAS's own core type and the CPU (vendor, family, model,
 * features), e.g. "GEMM nmt (AVX2+FMA panels), int8 avx2, vector math avx2
 * (8 lanes), OpenBLAS core Zen; CPU AuthenticAMD family 25 model 1: avx2 fma". */
const char *nn_gemm_path_line(void);
/* The CPU part alone: "AuthenticAMD family 25 model 1: avx2 fma". */
const char *nn_cpu_line(void);

#endif

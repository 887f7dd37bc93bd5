/* The GPU the CUDA test programs share, opened once: without a usable one a
 * case reports itself skipped with the reason, unless NMT_REQUIRE_GPU=1 (on a
 * GPU machine) makes that a failure. */
#ifndef NMT_TESTS_CUDA_GPU_CASE_H
#define NMT_TESTS_CUDA_GPU_CASE_H
#include <stdbool.h>

/* Opens GPU 0 on the first call; whether it is usable. */
bool have_gpu(void);
bool gpu_required(void);
/* Why there is no GPU. */
const char *gpu_reason(void);
/* A case closed the device: the next have_gpu opens it again. */
void gpu_closed(void);

#define NEED_GPU() do { if (!have_gpu()) { \
    if (gpu_required()) { T_FAIL("%s (NMT_REQUIRE_GPU=1)", gpu_reason()); return; } \
    T_SKIP("%s", gpu_reason()); } } while (0)

#endif

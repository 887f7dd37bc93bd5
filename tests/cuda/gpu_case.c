/* The shared GPU of the CUDA test programs; see cuda/gpu_case.h. */
#include "cuda/gpu_case.h"
#include "base/err.h"
#include "nn/cuda/nn_cuda.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int state; /* 0 not tried, 1 open, -1 none */
static char reason[300];

bool have_gpu(void) {
  if (!state) {
    state = nnc_init(0) == NMT_OK ? 1 : -1;
    if (state < 0) snprintf(reason, sizeof reason, "%s", nmt_errmsg());
  }
  return state > 0;
}

bool gpu_required(void) {
  const char *r = getenv("NMT_REQUIRE_GPU");
  return r && !strcmp(r, "1");
}

const char *gpu_reason(void) { return reason; }

void gpu_closed(void) { state = 0; }

/* The vector math at 4 lanes: SSE2 is the x86-64 baseline (plain GCC vectors
 * elsewhere). The reference the wider widths are tested against. */
#define NN_LANES 4
#define NN_VMATH_NAME sse
#include "nn/vmath_lanes.h"

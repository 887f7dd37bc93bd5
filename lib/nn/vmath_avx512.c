/* The vector math at 16 lanes, for cores with AVX-512F (nn/vmath.c picks it at
 * run time, so the rest of the build stays at the x86-64 baseline). */
#if defined(__x86_64__) || defined(__i386__)
#include "nn/compile_for.h"
NN_COMPILE_FOR("avx512f")
#define NN_LANES 16
#define NN_VMATH_NAME avx512
#include "nn/vmath_lanes.h"
NN_COMPILE_END
#endif

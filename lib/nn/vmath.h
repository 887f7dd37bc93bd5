/* Vectorised exp, sigmoid, tanh and the Adam update over arrays: 4 floats at a
 * time with GCC vector extensions (libm's scalar calls were ~8% of a training
 * step). exp is within 2e-7 relative of libm over [-85, 88], tanh and sigmoid
 * within 3e-7 absolute (tests/nn/test_vmath.c). The same code handles the
 * tail, so a value does not depend on its position. */
#ifndef NMT_NN_VMATH_H
#define NMT_NN_VMATH_H
#include <stddef.h>

/* y = exp(x - shift); returns the sum of y (y may be x). */
float nn_vexp_sum(float *y, const float *x, float shift, size_t n);
void nn_vsigmoid(float *y, const float *x, size_t n);
void nn_vtanh(float *y, const float *x, size_t n);
/* The largest of x[0..n), n >= 1. */
float nn_vmax(const float *x, size_t n);

#endif

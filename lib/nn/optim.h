/* Gradient norm, clipping and Adam over the one parameter buffer (nn/params.h). */
#ifndef NMT_NN_OPTIM_H
#define NMT_NN_OPTIM_H
#include "nn/params.h"

/* The L2 norm of the whole gradient, accumulated in double over fixed chunks
 * in chunk order: the same bits on any thread count. */
double nn_params_grad_norm(const nn_params *p);
/* Scale the gradient so its norm is at most max_norm; returns the norm before. */
double nn_params_clip(nn_params *p, double max_norm);

typedef struct {
  float lr, beta1, beta2, eps;
  float recurrent_scale; /* the rate of recurrent views is lr times this (0 counts as 1) */
} nn_adam;
/* One bias-corrected Adam step (Kingma & Ba 2015) over the whole buffer. */
void nn_adam_step(nn_params *p, const nn_adam *opt);

#endif

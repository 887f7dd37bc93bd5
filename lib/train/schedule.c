/* The rate schedule's step factors (Marian's --lr-warmup, --lr-decay-inv-sqrt);
 * see train/loop.h. */
#include "train/loop.h"
#include <math.h>

double nmt_lr_factor(long t, long warmup, long decay_inv_sqrt) {
  double f = 1;
  if (warmup > 0 && t < warmup) f = (double)t / (double)warmup;
  if (decay_inv_sqrt > 0 && t > decay_inv_sqrt) f *= sqrt((double)decay_inv_sqrt / (double)t);
  return f;
}

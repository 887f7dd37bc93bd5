/* The rate schedule's step factors (Marian's --lr-warmup, --lr-decay-inv-sqrt) and when a
 * periodic action is due in Marian's units;
 * see train/schedule.h. */
#include "train/schedule.h"
#include <math.h>

double nmt_lr_factor(long t, long warmup, long decay_inv_sqrt) {
  double f = 1;
  if (warmup > 0 && t < warmup) f = (double)t / (double)warmup;
  if (decay_inv_sqrt > 0 && t > decay_inv_sqrt) f *= sqrt((double)decay_inv_sqrt / (double)t);
  return f;
}

bool nmt_every(long n, char unit, const nmt_when *w) {
  if (n <= 0) return false;
  switch (unit) {
  case 'e': return w->epochs_done > 0 && w->epochs_done % n == 0;
  case 't': return w->tokens / n != w->tokens_before / n; /* a multiple of n crossed by this update */
  default: return w->step % n == 0;
  }
}

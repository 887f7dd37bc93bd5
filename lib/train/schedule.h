/* The rate schedule's factor per update (Marian's --lr-warmup, --lr-decay-inv-sqrt)
 * and when a periodic action is due in Marian's units (updates, epochs, tokens). */
#ifndef NMT_TRAIN_SCHEDULE_H
#define NMT_TRAIN_SCHEDULE_H
#include <stdbool.h>

/* What update t (1-based, Adam's count) multiplies the rate by: min(1, t/warmup)
 * (linear warm-up; Marian counts the updates before t, so its first is at rate 0)
 * times sqrt(decay/t) once t > decay (Marian's --lr-decay-inv-sqrt); 0 turns each
 * off. On top of the state's rate, which the plateau and epoch decays change. */
double nmt_lr_factor(long t, long warmup, long decay_inv_sqrt);

/* Where the run is after an update, for nmt_every. */
typedef struct {
  long step;
  long epochs_done;           /* epochs completed when this update ended one, else 0 */
  long tokens_before, tokens; /* target tokens trained on before and after it */
} nmt_when;
/* Whether an action every n units (Marian's: 'u' updates, also 0; 'e' epochs; 't'
 * target tokens) is due after this update; n <= 0: never. */
bool nmt_every(long n, char unit, const nmt_when *w);

#endif

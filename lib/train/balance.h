/* Cutting a batch into the data-parallel workers' parts by their work, not by their
 * number of sentences: a part's forward and backward step through its longest
 * source and target for every row, so with equal counts the part that holds the
 * longest sentences is the one every other worker waits for. */
#ifndef NMT_TRAIN_BALANCE_H
#define NMT_TRAIN_BALANCE_H
#include "models/batch.h"

/* cut[0..parts]: part j is pairs[cut[j] .. cut[j+1]) of c's pairs[0..n) (parts >= 1),
 * contiguous, at least one pair each (with n < parts: the first n parts one each, the
 * rest empty), with the most work of a part the least it can be. A part's work: rows × (longest source + longest target) + its target tokens (the
 * recurrent steps run padded, the output layer on the real tokens alone; </s> counted),
 * which is within 0.5% of a whole step's FLOPs as the best cut for the Luong model on
 * Multi30k. */
void nmt_balance_cut(const nmt_corpus *c, const long *pairs, int n, int parts, int *cut);

#endif

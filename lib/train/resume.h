/* Resuming: the checkpoint's position (epoch, batch) indexes an epoch plan made
 * from the corpus and the batch options, so a resumed run must make the same
 * plans; this checks that it does. */
#ifndef NMT_TRAIN_RESUME_H
#define NMT_TRAIN_RESUME_H
#include "train/loop.h"
#include <stddef.h>
#include <stdint.h>

/* A 64-bit hash of the corpus' token ids: a changed training set, vocabulary
 * or --max-length changes it. */
uint64_t nmt_corpus_fingerprint(const nmt_corpus *c);
/* Check that t->s (from a checkpoint) fits t->o and t->train, and record
 * them in t->s when it does. A different batch plan is NMT_EUSAGE listing each
 * changed option; another optimizer or first validation metric NMT_EUSAGE
 * naming both; a different corpus NMT_EINPUT; a different worker count is
 * allowed (the run goes on, no longer bit-identical) and *note says so. */
int nmt_train_resume_check(nmt_trainer *t, char *note, size_t n);

#endif

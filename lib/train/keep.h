/* --keep-best N: the list of the N best models by the first validation metric, kept
 * in the training state, and its text in the checkpoint. The loop writes and
 * removes the files. */
#ifndef NMT_TRAIN_KEEP_H
#define NMT_TRAIN_KEEP_H
#include "base/strbuf.h"
#include "train/state.h"
#include <stdbool.h>
#include <stddef.h>

/* "MODEL.best-STEP" */
void nmt_kept_path(char *out, size_t n, const char *model, long step);
/* Whether a model validated at value (of s->metric) enters the list of the best `keep`;
 * when it does, it is inserted and *dropped is the step of the one it pushed out, or -1. */
bool nmt_kept_insert(nmt_train_state *s, int keep, long step, double value, long *dropped);
/* The list as the checkpoint's "kept" section ("STEP VALUE" lines, VALUE in %a), and back
 * (best first by s->metric). */
int nmt_kept_text(const nmt_train_state *s, nmt_strbuf *out);
int nmt_kept_parse(nmt_train_state *s, const char *text, size_t len, const char *path);

#endif

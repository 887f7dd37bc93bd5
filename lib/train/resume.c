/* Resuming: the checks of a checkpoint's position against this run; see train/resume.h. */
#include "train/resume.h"
#include "base/err.h"
#include "io/model_file.h"
#include "base/strbuf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t nmt_corpus_fingerprint(const nmt_corpus *c) {
  uint64_t h = nmt_fnv1a(NMT_FNV_INIT, &c->n, sizeof c->n);
  h = nmt_fnv1a(h, c->src_off, sizeof *c->src_off * (size_t)(c->n + 1));
  h = nmt_fnv1a(h, c->tgt_off, sizeof *c->tgt_off * (size_t)(c->n + 1));
  h = nmt_fnv1a(h, c->src, sizeof *c->src * (size_t)c->src_off[c->n]);
  return nmt_fnv1a(h, c->tgt, sizeof *c->tgt * (size_t)c->tgt_off[c->n]);
}

static void changed_name(nmt_strbuf *b, const char *flag, const char *now, const char *was) {
  char text[128];
  if (!strcmp(now, was)) return;
  int n = snprintf(text, sizeof text, "%s--%s %s (checkpoint: %s)", b->len ? ", " : "", flag, now, was);
  nmt_strbuf_add(b, text, (size_t)n);
}

static void changed(nmt_strbuf *b, const char *flag, long now, long was) {
  char text[2][24];
  snprintf(text[0], sizeof text[0], "%ld", now);
  snprintf(text[1], sizeof text[1], "%ld", was);
  changed_name(b, flag, text[0], text[1]);
}

/* The optimiser's state and the best value go on only with the same optimiser and first metric. */
static int same_method(const nmt_trainer *t) {
  const nmt_train_state *s = &t->s;
  nmt_vmetric first = nmt_valid_first_metric(&t->o.valid);
  if (s->optimizer != t->o.optimizer)
    return nmt_fail(NMT_EUSAGE, "%s: cannot resume with --optimizer %s: the checkpoint was trained with %s; "
                    "resume with --optimizer %s or start afresh with --overwrite", t->o.ckpt_path,
                    nmt_optimizer_name(t->o.optimizer), nmt_optimizer_name(s->optimizer),
                    nmt_optimizer_name(s->optimizer));
  if (s->metric != first)
    return nmt_fail(NMT_EUSAGE, "%s: cannot resume with --valid-metrics %s first: the checkpoint's best model and "
                    "stalls are by %s; put %s first or start afresh with --overwrite", t->o.ckpt_path,
                    nmt_vmetric_name(first), nmt_vmetric_name(s->metric), nmt_vmetric_name(s->metric));
  return NMT_OK;
}

int nmt_train_resume_check(nmt_trainer *t, char *note, size_t n) {
  nmt_train_state *s = &t->s;
  int st = same_method(t);
  if (st) return st;
  const nmt_batch_opts *o = &t->o.batch;
  int size = t->o.comm ? t->o.comm->size : 1;
  int workers = (t->o.workers > 1 ? t->o.workers : 1) * size, delay = t->o.delay > 1 ? t->o.delay : 1;
  uint64_t hash = nmt_corpus_fingerprint(t->train);
  note[0] = 0;
  if (s->mini_batch) { /* recorded: a checkpoint's */
    nmt_strbuf b = {0};
    changed(&b, "mini-batch", o->max_sents, s->mini_batch);
    changed(&b, "mini-batch-words", o->max_words, s->mini_batch_words);
    changed(&b, "maxi-batch", o->window / o->max_sents, s->window / s->mini_batch);
    if (s->delay) changed(&b, "optimizer-delay", delay, s->delay);
    changed_name(&b, "maxi-batch-sort", nmt_batch_sort_name(o->sort), nmt_batch_sort_name(s->sort));
    st = b.len ? nmt_fail(NMT_EUSAGE, "%s: cannot resume at epoch %ld batch %ld with other batches: %.*s; "
                              "resume with the checkpoint's values or start afresh with --overwrite",
                              t->o.ckpt_path, s->epoch + 1, s->batch, (int)b.len, b.s)
                   : NMT_OK;
    free(b.s);
    if (st) return st;
    if (s->corpus_pairs != t->train->n || s->corpus_hash != hash)
      return nmt_fail(NMT_EINPUT, "%s: cannot resume: the training data differ from the checkpoint's "
                      "(%ld sentence pairs, the checkpoint's %ld: --train-sets or --max-length changed); "
                      "train on the same data or start afresh with --overwrite",
                      t->o.ckpt_path, t->train->n, s->corpus_pairs);
    if (s->workers && s->workers != workers)
      snprintf(note, n, "--cpu-threads %d, the checkpoint's %d: the run goes on, but no longer "
               "bit-identical to an uninterrupted one", workers, s->workers);
  }
  s->mini_batch = o->max_sents, s->mini_batch_words = o->max_words, s->window = o->window;
  s->workers = workers, s->delay = delay, s->corpus_pairs = t->train->n, s->corpus_hash = hash, s->sort = o->sort;
  return NMT_OK;
}

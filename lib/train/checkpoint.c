/* Checkpoints: a model file plus the sections "adam.m", "adam.v" (the moment
 * buffers, laid out as "weights"), "ema" (the weights' moving average, when
 * kept; laid out alike), "state" (key=value lines) and "kept" (--keep-best's
 * list, when not empty). The state's best-ppl is the first validation metric's best
 * (valid-metric; the key's name is from when perplexity was the only one). */
#include "train/checkpoint.h"
#include "base/err.h"
#include "train/keep.h"
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int state_text(const nmt_train_state *s, long adam_step, nmt_strbuf *b) {
  char text[1024];
  /* %a: doubles written and read back bit for bit, so a resumed run is the same run */
  int n = snprintf(text, sizeof text,
                   "seed=%" PRIu64 "\nstep=%ld\nepoch=%ld\nbatch=%ld\nlr=%a\nbest-ppl=%a\n"
                   "stalls=%d\ntokens=%ld\nelapsed=%a\nadam-step=%ld\nmini-batch=%d\n"
                   "mini-batch-words=%ld\nbatch-window=%d\nworkers=%d\ncorpus-pairs=%ld\n"
                   "corpus-hash=%016" PRIx64 "\noptimizer-delay=%d\noptimizer=%s\nvalid-metric=%s\n"
                   "best-step=%ld\nmaxi-batch-sort=%s\n",
                   s->seed, s->step, s->epoch, s->batch, s->lr, s->best, s->stalls, s->tokens,
                   s->elapsed, adam_step, s->mini_batch, s->mini_batch_words, s->window, s->workers,
                   s->corpus_pairs, s->corpus_hash, s->delay, nmt_optimizer_name(s->optimizer),
                   nmt_vmetric_name(s->metric), s->best_step, nmt_batch_sort_name(s->sort));
  return nmt_strbuf_add(b, text, (size_t)n) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

/* Which sections hold the state's buffers, for the caller's fill. */
typedef struct {
  int at[3]; /* the sections of m, v and ema (-1: none) */
  nmt_state_fill fill;
  void *ctx;
} filler;

static int before_section(void *ctx, int i) {
  const filler *h = ctx;
  for (int k = 0; k < 3; k++)
    if (h->at[k] == i) return h->fill(h->ctx, k);
  return NMT_OK;
}

int nmt_checkpoint_save(const nmt_model *m, const nmt_train_state *s, const char *path) {
  return nmt_checkpoint_save_filled(m, s, path, NULL, NULL);
}

int nmt_checkpoint_save_filled(const nmt_model *m, const nmt_train_state *s, const char *path, nmt_state_fill fill,
                               void *ctx) {
  nmt_model_file f = {0};
  nmt_strbuf text[5] = {{0}}; /* the model's three, the state, the kept list */
  size_t bytes = sizeof(float) * m->params.n;
  const float *state[3] = {m->params.m, m->params.v, m->params.ema};
  const char *tags[3] = {"adam.m", "adam.v", "ema"};
  filler h = {{-1, -1, -1}, fill, ctx};
  int st = nmt_model_sections(m, &f, text);
  if (!st) st = state_text(s, m->params.step, &text[3]);
  for (int k = 0; k < 3 && !st && state[k]; k++) h.at[k] = f.n, st = nmt_mf_add(&f, tags[k], state[k], bytes);
  if (!st) st = nmt_mf_add(&f, "state", text[3].s, text[3].len);
  if (!st && s->nkept && !(st = nmt_kept_text(s, &text[4]))) st = nmt_mf_add(&f, "kept", text[4].s, text[4].len);
  if (!st) st = nmt_mf_write_filled(&f, path, fill ? before_section : NULL, &h);
  for (int i = 0; i < 5; i++) free(text[i].s);
  free(f.s);
  return st;
}

static int parse_state(nmt_train_state *s, long *adam_step, const nmt_section *sec, const char *path) {
  *s = (nmt_train_state){0}; /* keys an older checkpoint lacks stay 0: not recorded */
  char *text = strndup(sec->data, sec->len), optimizer[8] = "adam", metric[16] = "perplexity", sort[8] = "src";
  if (!text) return nmt_fail(NMT_EIO, "out of memory");
  int n = sscanf(text,
                 "seed=%" SCNu64 " step=%ld epoch=%ld batch=%ld lr=%la best-ppl=%la stalls=%d "
                 "tokens=%ld elapsed=%la adam-step=%ld mini-batch=%d mini-batch-words=%ld "
                 "batch-window=%d workers=%d corpus-pairs=%ld corpus-hash=%" SCNx64 " optimizer-delay=%d "
                 "optimizer=%7[a-z] valid-metric=%15[a-z-] best-step=%ld maxi-batch-sort=%7[a-z]",
                 &s->seed, &s->step, &s->epoch, &s->batch, &s->lr, &s->best, &s->stalls,
                 &s->tokens, &s->elapsed, adam_step, &s->mini_batch, &s->mini_batch_words, &s->window,
                 &s->workers, &s->corpus_pairs, &s->corpus_hash, &s->delay, optimizer, metric, &s->best_step, sort);
  free(text);
  /* older: Adam's, by perplexity, whose best (when validated) is at an unrecorded step */
  if (n < 20) s->best_step = s->best > 0 ? -1 : 0;
  bool known = !nmt_optimizer_parse("optimizer", optimizer, &s->optimizer) &&
               !nmt_vmetric_parse("valid-metrics", metric, &s->metric) &&
               !nmt_batch_sort_parse("maxi-batch-sort", sort, &s->sort);
  /* Resuming from negative counts or a non-finite rate hung or diverged the run. */
  bool sane = s->step >= 0 && s->epoch >= 0 && s->batch >= 0 && s->stalls >= 0 && s->tokens >= 0 &&
              *adam_step >= 0 && isfinite(s->lr) && s->lr > 0 && isfinite(s->best) &&
              s->best >= 0 && s->best_step >= -1 && known && isfinite(s->elapsed) && s->elapsed >= 0 && s->mini_batch >= 0 &&
              s->mini_batch_words >= 0 && s->window >= 0 && s->workers >= 0 && s->corpus_pairs >= 0 && s->delay >= 0;
  /* 10: a checkpoint older than the batch and corpus keys (nothing to check them against); 16:
   * older than --optimizer-delay (0: not recorded); 17: older than --optimizer and --valid-metrics;
   * 20: older than --maxi-batch-sort (the windows were sorted by source) */
  return (n == 10 || n == 16 || n == 17 || n == 20 || n == 21) && sane ? NMT_OK : nmt_fail(NMT_EINPUT, "%s: bad training state", path);
}

int nmt_checkpoint_load(nmt_model *m, nmt_train_state *s, const char *path) {
  nmt_model_file f;
  int st = nmt_mf_read(&f, path);
  if (st) return st;
  const nmt_section *state = nmt_mf_get(&f, "state");
  st = state ? nmt_model_from_file(m, &f, path, true)
             : nmt_fail(NMT_EINPUT, "%s: a model, not a checkpoint (no training state)", path);
  if (!st) st = parse_state(s, &m->params.step, state, path);
  const nmt_section *kept = nmt_mf_get(&f, "kept");
  if (!st && kept) st = nmt_kept_parse(s, kept->data, kept->len, path);
  if (!st) st = nmt_model_load_buffer(m, m->params.m, &f, "adam.m", path);
  if (!st) st = nmt_model_load_buffer(m, m->params.v, &f, "adam.v", path);
  if (!st && nmt_mf_get(&f, "ema") && !(st = nn_params_keep_ema(&m->params, true)))
    st = nmt_model_load_buffer(m, m->params.ema, &f, "ema", path);
  if (st && state) nmt_model_free(m);
  nmt_mf_free(&f);
  return st;
}

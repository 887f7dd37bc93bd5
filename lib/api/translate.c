/* nmt_translator_translate: the caller's lines as one window of nmt-decode's
 * (sorted by length into mini-batches, decoded over the option's threads), so
 * that the text is the same as nmt-decode writes (include/nmt.h). */
#include "api/api.h"
#include "api/result.h"
#include "base/err.h"
#include "base/pool.h"
#include "nn/parallel.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  nmt_translator *t;
  api_worker *w;
  int n;           /* lines */
  int **ids, *len, *cap;
  int *order;      /* the lines with tokens, sorted by length */
  int k;           /* how many */
  nmt_sent *sents; /* (k) in that order */
  nmt_nbest *outs; /* (k) */
  float **att;     /* (k) with alignments: each sentence's shown hypotheses' attention */
  nmt_search_opts search;
  atomic_int taken;
  int status[NMT_MAX_DECODE_THREADS];
  char msg[NMT_MAX_DECODE_THREADS][512];
} call;

static int by_length(const void *x, const void *y, void *len) {
  const int *l = len;
  int a = *(const int *)x, b = *(const int *)y, d = l[a] - l[b];
  return d ? d : a - b;
}

/* After each mini-batch [at, at + nb) of the sorted sentences: their alignments. */
static int align_then(void *ctx, nmt_dec *d, int at, int nb) {
  call *c = ctx;
  return api_align_batch(c->t, d, c->sents + at, c->outs + at, nb, c->att + at);
}

/* One decoding thread's share: the mini-batches it takes (no BLAS threads of its own). */
static void share(void *ctx, int part, int parts) {
  call *c = ctx;
  nn_parallel_nested(true);
  int st = nmt_decode_share(&c->w->dec[part], &c->t->e.dec, &c->search, c->sents, c->k, c->t->o.mini_batch,
                            &c->taken, c->t->align ? align_then : NULL, c, c->outs);
  nn_parallel_nested(false);
  c->status[part] = st;
  if (st) snprintf(c->msg[part], sizeof c->msg[part], "%s", nmt_errmsg());
}

static int decode(call *c) {
  for (int i = 0; i < c->n; i++)
    if (c->len[i]) c->order[c->k++] = i;
  qsort_r(c->order, (size_t)c->k, sizeof *c->order, by_length, c->len);
  for (int i = 0; i < c->k; i++) c->sents[i] = (nmt_sent){c->ids[c->order[i]], c->len[c->order[i]], NULL, 0, 0, 0};
  int batches = (c->k + c->t->o.mini_batch - 1) / c->t->o.mini_batch;
  int parts = batches < c->t->o.threads ? (batches ? batches : 1) : c->t->o.threads;
  nmt_pool_run(parts, share, c);
  for (int p = 0; p < parts; p++)
    if (c->status[p]) return p ? nmt_fail(c->status[p], "%s", c->msg[p]) : c->status[p];
  return NMT_OK;
}

/* buf's string, handed over to *out ("" when empty). */
static int take_string(nmt_strbuf *buf, char **out) {
  if (!buf->s && !(buf->s = strdup(""))) return nmt_fail(NMT_EIO, "out of memory");
  *out = buf->s, *buf = (nmt_strbuf){0};
  return NMT_OK;
}

/* Sentence i's hypotheses (nb, or none; att: their attention, or NULL) as text into s. */
static int texts(call *c, const nmt_nbest *nb, const float *att, int src_n, api_sent *s) {
  int k = !nb ? 0 : c->t->o.n_best ? nb->n : nb->n ? 1 : 0, st = NMT_OK;
  s->text = calloc((size_t)k + 1, sizeof *s->text);
  s->score = calloc((size_t)k + 1, sizeof *s->score);
  if (att) s->align = calloc((size_t)k + 1, sizeof *s->align);
  if (!s->text || !s->score || (att && !s->align)) return nmt_fail(NMT_EIO, "out of memory");
  for (int h = 0; h < k && !st; h++) {
    const nmt_hyp *hyp = &nb->hyps[h];
    nmt_strbuf line = {0};
    st = nmt_text_target(c->w->text, hyp->ids, hyp->n, &line);
    if (!st) st = take_string(&line, &s->text[h]);
    if (!st) s->score[h] = hyp->score, s->k = h + 1; /* nmt_result_free's from here */
    if (!st && att) st = nmt_attention_text(&line, att, hyp->n, src_n, c->t->align, c->t->align_threshold);
    if (!st && att) st = take_string(&line, &s->align[h]);
    free(line.s);
    if (att) att += (size_t)hyp->n * (src_n + 1);
  }
  return st;
}

static int results(call *c, nmt_result *r) {
  if (!(r->sent = calloc((size_t)c->n + 1, sizeof *r->sent))) return nmt_fail(NMT_EIO, "out of memory");
  r->n = c->n;
  int st = NMT_OK;
  for (int i = 0; i < c->k && !st; i++)
    st = texts(c, &c->outs[i], c->att ? c->att[i] : NULL, c->sents[i].src_n, &r->sent[c->order[i]]);
  return st;
}

static int run(call *c, const char *const *lines, nmt_result *r) {
  size_t n = (size_t)c->n + 1;
  c->ids = calloc(n, sizeof *c->ids), c->len = calloc(n, sizeof *c->len), c->cap = calloc(n, sizeof *c->cap);
  c->order = calloc(n, sizeof *c->order), c->sents = calloc(n, sizeof *c->sents), c->outs = calloc(n, sizeof *c->outs);
  if (c->t->align) c->att = calloc(n, sizeof *c->att);
  int st = c->ids && c->len && c->cap && c->order && c->sents && c->outs && (c->att || !c->t->align)
               ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
  for (int i = 0; i < c->n && !st; i++)
    st = api_source_ids(c->t, c->w, lines[i], "line", i, &c->ids[i], &c->len[i], &c->cap[i]);
  if (!st) st = decode(c);
  if (!st) st = results(c, r);
  for (int i = 0; c->outs && i < c->k; i++) nmt_nbest_free(&c->outs[i]);
  for (int i = 0; c->att && i < c->k; i++) free(c->att[i]);
  for (int i = 0; c->ids && i < c->n; i++) free(c->ids[i]);
  free(c->ids), free(c->len), free(c->cap), free(c->order), free(c->sents), free(c->outs), free(c->att);
  return st;
}

nmt_status nmt_translator_translate(nmt_translator *t, const char *const *lines, int n, nmt_result **r) {
  if (!r) return api_status(nmt_fail(NMT_EUSAGE, "nmt_translator_translate: NULL result"));
  *r = NULL;
  if (!t || n < 0 || (n && !lines))
    return api_status(nmt_fail(NMT_EUSAGE, "nmt_translator_translate: NULL translator or lines, or n < 0"));
  const nmt_translator_options *o = &t->o;
  call *c = calloc(1, sizeof *c);
  nmt_result *res = calloc(1, sizeof *res);
  int st = c && res ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
  if (!st) {
    c->t = t, c->n = n;
    c->search = (nmt_search_opts){o->beam_size, (float)o->normalize, (float)o->max_length_factor, o->shortlist};
    st = api_worker_take(t, &c->w);
  }
  bool gpu = !st && t->on_gpu;
  if (gpu) api_device_turn(true);
  if (!st) st = run(c, lines, res);
  if (gpu) api_device_turn(false);
  if (c && c->w) api_worker_give(t, c->w);
  free(c);
  if (st) {
    nmt_result_free(res);
    return api_status(st);
  }
  *r = res;
  return NMT_STATUS_OK;
}

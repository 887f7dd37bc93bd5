/* Validation: perplexity without label smoothing, and corpus BLEU (sacreBLEU's 13a)
 * and chrF (sacreBLEU's chrF2) of translations (greedy, or a beam) against the
 * BPE-joined references, each when asked for; with SentencePiece vocabularies, the
 * sets are raw text and the translations decoded pieces. Under mpirun each rank scores a contiguous
 * range of the batches, and every rank gets every batch's numbers and
 * translations, folded in batch order: one process's results. */
#include "train/valid.h"
#include "metrics/bleu.h"
#include "metrics/chrf.h"
#include "decode/search.h"
#include "decode/text.h"
#include "base/err.h"
#include "io/io.h"
#include "io/tstream.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { VALID_BATCH = 64 };

/* The text of target ids: their tokens BPE joined, or decoded by the target's
 * SentencePiece model. */
static int target_text(const nmt_model *m, const int *ids, int n, nmt_strbuf *out) {
  return m->seg[1] ? nmt_ids_desegment(m->tgt, m->seg[1], ids, n, out) : nmt_ids_text(m->tgt, ids, n, true, out);
}

/* References from an id stream (text/tstream_ids.h): the text of its ids;
 * words unknown to the vocabulary are <unk> there. */
static int refs_from_ids(nmt_valid_set *v, const nmt_model *m) {
  const nmt_corpus *c = &v->corpus;
  int st = NMT_OK;
  for (long i = 0; !st && i < c->n; i++) {
    nmt_strbuf b = {0};
    st = target_text(m, c->tgt + c->tgt_off[i], (int)(c->tgt_off[i + 1] - c->tgt_off[i]), &b);
    v->refs[i] = b.s ? b.s : strdup("");
  }
  return st;
}

/* References from text: BPE joined, or as they are when raw (SentencePiece). */
static int read_refs(nmt_valid_set *v, const char *path, const nmt_model *m) {
  v->refs = calloc((size_t)v->corpus.n, sizeof *v->refs);
  if (!v->refs) return nmt_fail(NMT_EIO, "out of memory");
  bool ids;
  int st = nmt_ts_sniff(path, &ids);
  if (st || ids) return st ? st : refs_from_ids(v, m);
  nmt_reader *r;
  if ((st = nmt_reader_open(&r, path))) return st;
  char *line;
  size_t len;
  for (long i = 0; !st && i < v->corpus.n && nmt_reader_next(r, &line, &len) == 1; i++) {
    nmt_strbuf b = {0};
    st = m->seg[1] ? nmt_strbuf_add(&b, line, len) : nmt_bpe_join(line, len, &b);
    v->refs[i] = b.s ? b.s : strdup("");
  }
  nmt_reader_close(r);
  return st;
}

int nmt_valid_load(nmt_valid_set *v, const char *src, const char *tgt, const nmt_model *m) {
  memset(v, 0, sizeof *v);
  int st = nmt_corpus_read(&v->corpus, src, tgt, m->src, m->tgt, m->seg, 0);
  if (!st) st = read_refs(v, tgt, m);
  if (st) nmt_valid_free(v);
  return st;
}

void nmt_valid_free(nmt_valid_set *v) {
  for (long i = 0; v->refs && i < v->corpus.n; i++) free(v->refs[i]);
  free(v->refs);
  nmt_corpus_free(&v->corpus);
}

/* This rank's contiguous range [*lo, *hi) of n batches. */
static void my_batches(const nmt_comm *c, long n, long *lo, long *hi) {
  *lo = n * c->rank / c->size;
  *hi = n * (c->rank + 1) / c->size;
}

/* Every rank's n bytes of results to every rank, in rank order (so in batch
 * order), once every rank got its own: a failure on one is every rank's. */
static int gather_results(nmt_comm *c, int st, const void *mine, size_t n, char **all) {
  size_t len[c->size];
  *all = NULL;
  st = nmt_comm_exchange(c, st, NULL, NULL, 0);
  return st ? st : nmt_comm_gather_bytes(c, mine, n, all, len);
}

/* One batch's summed loss and target tokens. */
typedef struct {
  float loss;
  long tokens;
} batch_loss;

/* The loss per target token, ln of the perplexity. */
static int cross_entropy(nmt_comm *comm, nmt_model *m, nn_params *p, const nmt_corpus *c, double *ce) {
  nmt_net net = m->net;
  net.cfg.label_smoothing = 0;
  net.cfg.opt.recon_beta = 0; /* the reconstructor is a training loss: validation scores the translation */
  nmt_batch_opts o = {VALID_BATCH, 0, 0, false};
  nmt_plan plan;
  int st = nmt_plan_epoch(&plan, c, &o, 0, 0);
  nmt_batch b = {0};
  nn_graph g = {.be = p->be};
  long lo = 0, hi = 0;
  if (!st) my_batches(comm, plan.nbatches, &lo, &hi);
  batch_loss *mine = calloc((size_t)(hi - lo + 1), sizeof *mine);
  if (!st && !mine) st = nmt_fail(NMT_EIO, "out of memory");
  for (long i = lo; !st && i < hi; i++) {
    st = nmt_batch_fill(&b, c, plan.pairs + plan.start[i], (int)(plan.start[i + 1] - plan.start[i]));
    long n = 0;
    nn_tensor *l = st ? NULL : (nn_graph_reset(&g, false, 0), nmt_net_forward(&g, &net, p, &b, &n));
    float value = 0;
    if (!st && !(l && nn_to_host(&g, l, &value))) st = nmt_errcode();
    if (!st) mine[i - lo] = (batch_loss){value, n};
  }
  char *bytes;
  st = gather_results(comm, st, mine, (size_t)(hi - lo) * sizeof *mine, &bytes);
  const batch_loss *all = (const batch_loss *)bytes; /* malloc'd: aligned for any type */
  double loss = 0;
  long tokens = 0;
  for (long i = 0; !st && i < plan.nbatches; i++) loss += all[i].loss, tokens += all[i].tokens;
  *ce = loss / (double)(tokens ? tokens : 1);
  free(mine), free(bytes);
  nn_graph_free(&g);
  nmt_batch_free(&b);
  nmt_plan_free(&plan);
  return st;
}

/* Every rank's translations (its sentences' [lo, hi)) to every rank: the
 * texts back to back, each ended by a NUL, in sentence order. */
static int gather_hyps(nmt_comm *comm, int st, char **hyps, long lo, long hi, long n) {
  if (comm->size == 1) return st; /* they are all here already */
  nmt_strbuf mine = {0};
  for (long i = lo; i < hi && !st; i++)
    if (nmt_strbuf_add(&mine, hyps[i], strlen(hyps[i]) + 1)) st = nmt_fail(NMT_EIO, "out of memory");
  char *all;
  st = gather_results(comm, st, mine.s, mine.len, &all);
  free(mine.s);
  const char *at = all;
  for (long i = 0; i < n && !st; at += strlen(at) + 1, i++) {
    free(hyps[i]);
    if (!(hyps[i] = strdup(at))) st = nmt_fail(NMT_EIO, "out of memory");
  }
  free(all);
  return st;
}

/* Translations of all validation sources as text (the beam's best). */
static int translate(nmt_comm *comm, nmt_model *m, nn_params *p, const nmt_corpus *c, const nmt_search_opts *o,
                     char **hyps) {
  nmt_dec d = {0};
  const int *src[VALID_BATCH];
  int n[VALID_BATCH], st = NMT_OK;
  nmt_nbest out[VALID_BATCH];
  long lo, hi;
  my_batches(comm, (c->n + VALID_BATCH - 1) / VALID_BATCH, &lo, &hi);
  lo *= VALID_BATCH, hi = hi * VALID_BATCH < c->n ? hi * VALID_BATCH : c->n;
  for (long i = lo; !st && i < hi; i += VALID_BATCH) {
    int B = c->n - i < VALID_BATCH ? (int)(c->n - i) : VALID_BATCH;
    for (int b = 0; b < B; b++) {
      src[b] = c->src + c->src_off[i + b];
      n[b] = (int)(c->src_off[i + b + 1] - c->src_off[i + b]);
    }
    st = nmt_search(&d, NMT_ONE_MODEL(&m->net, p), src, n, B, o, out);
    for (int b = 0; b < B; b++) {
      nmt_strbuf text = {0};
      if (!st && out[b].n) st = target_text(m, out[b].hyps[0].ids, out[b].hyps[0].n, &text);
      hyps[i + b] = text.s ? text.s : strdup("");
      nmt_nbest_free(&out[b]);
    }
  }
  nmt_dec_free(&d);
  return gather_hyps(comm, st, hyps, lo, hi, c->n);
}

/* Corpus chrF: the segments' statistics summed, then scored. */
static int chrf(char **hyps, char *const *refs, long n, double *score) {
  nmt_chrf_opts o = nmt_chrf_defaults();
  nmt_chrf *c = NULL;
  int st = nmt_chrf_new(&c, &o);
  int k = st ? 0 : nmt_chrf_nstats(c);
  double *sum = st ? NULL : calloc(2 * (size_t)k, sizeof *sum), *seg = sum ? sum + k : NULL;
  if (!st && !sum) st = nmt_fail(NMT_EIO, "out of memory");
  for (long i = 0; !st && i < n; i++) {
    size_t ref_len = strlen(refs[i]);
    st = nmt_chrf_segment(c, hyps[i], strlen(hyps[i]), (const char *const *)&refs[i], &ref_len, 1, seg);
    for (int j = 0; !st && j < k; j++) sum[j] += seg[j];
  }
  *score = st ? NAN : nmt_chrf_score(c, sum, false);
  free(sum);
  nmt_chrf_free(c);
  return st;
}

/* BLEU and chrF, those of them asked for, of translations made with o's search. */
static int translation_scores(nmt_comm *c, nmt_model *m, nn_params *p, const nmt_valid_set *v,
                              const nmt_valid_opts *o, bool bleu, bool chrf_too, nmt_valid_scores *out) {
  nmt_search_opts so = {o && o->beam > 1 ? o->beam : 1, 0, o && o->max_length_factor > 0 ? o->max_length_factor : 2.0f};
  char **hyps = calloc((size_t)v->corpus.n, sizeof *hyps);
  int st = hyps ? translate(c, m, p, &v->corpus, &so, hyps) : nmt_fail(NMT_EIO, "out of memory");
  nmt_bleu_opts bo = nmt_bleu_defaults();
  nmt_bleu_score score = {0};
  if (!st && bleu && !(st = nmt_bleu_corpus((const char *const *)hyps, (const char *const *)v->refs,
                                            (size_t)v->corpus.n, &bo, &score)))
    out->bleu = score.score;
  if (!st && chrf_too) st = chrf(hyps, v->refs, v->corpus.n, &out->chrf);
  for (long i = 0; hyps && i < v->corpus.n; i++) free(hyps[i]);
  free(hyps);
  return st;
}

int nmt_validate_scores(nmt_comm *c, nmt_model *m, nn_params *p, const nmt_valid_set *v, const nmt_valid_opts *o,
                        nmt_valid_scores *out) {
  *out = (nmt_valid_scores){NAN, NAN, NAN, NAN};
  nmt_vmetric want[NMT_VM_COUNT];
  bool on[NMT_VM_COUNT] = {false};
  for (int i = 0, n = nmt_valid_metrics_of(o, want); i < n; i++) on[want[i]] = true;
  int st = NMT_OK;
  if (on[NMT_VM_PERPLEXITY] || on[NMT_VM_CE_MEAN_WORDS]) {
    st = cross_entropy(c, m, p, &v->corpus, &out->ce);
    out->ppl = exp(out->ce);
  }
  if (!st && (on[NMT_VM_BLEU] || on[NMT_VM_CHRF]))
    st = translation_scores(c, m, p, v, o, on[NMT_VM_BLEU], on[NMT_VM_CHRF], out);
  return st;
}

int nmt_validate(nmt_model *m, const nmt_valid_set *v, double *ppl, double *bleu) {
  nmt_valid_scores s;
  const nmt_valid_opts o = {{NMT_VM_PERPLEXITY, NMT_VM_BLEU}, 2, 1, 0};
  int st = nmt_validate_scores(nmt_comm_local(), m, &m->params, v, &o, &s);
  *ppl = s.ppl, *bleu = s.bleu;
  return st;
}

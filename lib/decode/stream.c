/* Windowed batch translation of a line stream; see decode/stream.h. */
#include "decode/stream.h"
#include "base/err.h"
#include "base/pool.h"
#include "base/utf8.h"
#include "decode/align.h"
#include "decode/constrained.h"
#include "decode/svg.h"
#include "nn/parallel.h"
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int *ids;
  int n, cap;
  long lineno;   /* its number in the input file, 0-based */
  int *pre, pre_n, pre_cap; /* its target prefix (--prefix): ids, and the text as given */
  nmt_strbuf given;
  int *cons, cons_n, cons_cap; /* its constraints (--constraints): nmt_sent.cons */
  nmt_nbest out;
  float *att; /* the attention of each shown hypothesis (nmt_attention's rows), one after another
                 (--alignment; --attention-svg: the best's; --replace-unk: those with an <unk>) */
  nmt_strbuf src; /* --replace-unk, --attention-svg: the source tokens */
} line_job;

static bool has_unk(const nmt_hyp *h) {
  for (int i = 0; i < h->n; i++)
    if (h->ids[i] == NMT_UNK) return true;
  return false;
}

typedef struct {
  const nmt_models *e;
  const nmt_vocab *src, *tgt; /* the first model's: the input's ids, the output's */
  const nmt_decode_opts *o;
  int threads;   /* worker threads (or BLAS threads for one batch) */
  nmt_dec *dec;  /* (threads) each thread's decoder */
  nmt_text *text;
  line_job *jobs;
  int *order;    /* window lines with tokens, sorted by length */
  nmt_sent *sents; /* (window) their sentences and hypotheses, in that order */
  nmt_nbest *outs;
  long first;    /* input line number (0-based) of jobs[0] */
} stream;

static void warn(stream *s, const char *msg) {
  if (s->o->warn) s->o->warn(s->o->warn_ctx, msg);
}

static int by_length(const void *x, const void *y, void *jobs) {
  const line_job *j = jobs;
  int a = *(const int *)x, b = *(const int *)y, d = j[a].n - j[b].n;
  return d ? d : a - b;
}

/* The attention of the hypotheses shown for lines jobs[idx[0..nb)]. */
static int align_batch(stream *s, nmt_dec *dec, const int *idx, int nb) {
  int shown = s->o->n_best ? s->o->search.beam : 1, R = 0, st = NMT_OK;
  size_t rows = (size_t)nb * shown;
  const int **src = malloc(sizeof *src * rows), **tgt = malloc(sizeof *tgt * rows);
  int *src_n = malloc(sizeof *src_n * rows), *tgt_n = malloc(sizeof *tgt_n * rows);
  float **out = malloc(sizeof *out * rows);
  if (!src || !tgt || !src_n || !tgt_n || !out) st = nmt_fail(NMT_EIO, "out of memory");
  for (int b = 0; b < nb && !st; b++) {
    line_job *j = &s->jobs[idx[b]];
    int k = j->out.n < shown ? j->out.n : shown;
    size_t total = 0;
    for (int h = 0; h < k; h++) total += (size_t)j->out.hyps[h].n * (j->n + 1);
    free(j->att);
    if (!(j->att = malloc(sizeof *j->att * (total + 1)))) st = nmt_fail(NMT_EIO, "out of memory");
    size_t at = 0;
    for (int h = 0; h < k && !st; h++) {
      const nmt_hyp *hyp = &j->out.hyps[h];
      if (s->o->alignment || (!h && s->o->attention_svg) || has_unk(hyp)) { /* only what is read */
        src[R] = j->ids, src_n[R] = j->n, tgt[R] = hyp->ids, tgt_n[R] = hyp->n, out[R] = j->att + at;
        R++;
      }
      at += (size_t)hyp->n * (j->n + 1);
    }
  }
  if (!st) st = nmt_attention(dec, s->e, src, src_n, tgt, tgt_n, R, out);
  free(src), free(tgt), free(src_n), free(tgt_n), free(out);
  return st;
}

int nmt_decode_share(nmt_dec *d, const nmt_models *e, const nmt_search_opts *o, const nmt_sent *in, int n,
                     int mini_batch, atomic_int *taken, nmt_batch_done then, void *ctx, nmt_nbest *out) {
  int st = NMT_OK, batches = (n + mini_batch - 1) / mini_batch, mine = 0;
  for (int k; !st && (k = taken ? atomic_fetch_add(taken, 1) : mine++) < batches;) {
    int at = (batches - 1 - k) * mini_batch, nb = n - at < mini_batch ? n - at : mini_batch;
    st = nmt_search_sents(d, e, in + at, nb, o, out + at);
    if (!st && then) st = then(ctx, d, at, nb);
  }
  if (st && taken) atomic_store(taken, batches);
  return st;
}

/* One thread's share of a window, and its error (messages are per thread). */
typedef struct {
  stream *s;
  atomic_int *taken; /* the window's mini-batches taken so far */
  int k, status;
  char msg[512];
} share;

static int window_align(void *ctx, nmt_dec *d, int at, int nb) {
  stream *s = ctx;
  for (int b = 0; b < nb; b++) s->jobs[s->order[at + b]].out = s->outs[at + b];
  return s->o->alignment || s->o->replace_unk || s->o->attention_svg ? align_batch(s, d, s->order + at, nb) : NMT_OK;
}

static void translate_share(void *ctx, int part, int parts) {
  share *sh = (share *)ctx + part;
  stream *s = sh->s;
  if (parts > 1) nn_parallel_nested(true);
  int st = nmt_decode_share(&s->dec[part], s->e, &s->o->search, s->sents, sh->k, s->o->mini_batch, sh->taken,
                            window_align, s, s->outs);
  nn_parallel_nested(false);
  sh->status = st;
  if (st) snprintf(sh->msg, sizeof sh->msg, "%s", nmt_errmsg());
}

/* The window's mini-batches over the worker threads, each with one BLAS
 * thread (Marian's --cpu-threads); a window of one mini-batch gets them all
 * as BLAS threads instead. */
static int translate_window(stream *s, int n) {
  int k = 0, st = NMT_OK;
  for (int i = 0; i < n; i++)
    if (s->jobs[i].n) s->order[k++] = i;
  qsort_r(s->order, (size_t)k, sizeof *s->order, by_length, s->jobs);
  for (int i = 0; i < k; i++) {
    const line_job *j = &s->jobs[s->order[i]];
    s->sents[i] = (nmt_sent){j->ids, j->n, j->pre, j->pre_n, s->o->seed, (uint64_t)j->lineno, j->cons, j->cons_n};
  }
  int batches = (k + s->o->mini_batch - 1) / s->o->mini_batch;
  int parts = batches < s->threads ? (batches ? batches : 1) : s->threads;
  openblas_set_num_threads(parts > 1 ? 1 : s->threads);
  share sh[NMT_MAX_DECODE_THREADS];
  atomic_int taken = 0;
  for (int p = 0; p < parts; p++) sh[p] = (share){s, &taken, k, NMT_OK, ""};
  nmt_pool_run(parts, translate_share, sh);
  for (int p = 0; p < parts && !st; p++)
    if (sh[p].status) st = p ? nmt_fail(sh[p].status, "%s", sh[p].msg) : sh[p].status;
  return st;
}

/* The target tokens of hypothesis h of line j, each <unk> replaced (att: its attention). */
static int unk_replaced(stream *s, const line_job *j, const nmt_hyp *h, const float *att, nmt_strbuf *toks) {
  int *align = malloc(sizeof *align * (size_t)h->n), st = align ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
  for (int t = 0; !st && t < h->n; t++) align[t] = nmt_attention_argmax(att + (size_t)t * (j->n + 1), j->n);
  if (!st)
    st = nmt_unk_replace(s->tgt, h->ids, h->n, align, j->src.s ? j->src.s : "", j->src.len, s->o->unk_dict, toks);
  free(align);
  return st;
}

/* The text of hypothesis h of line j, its <unk>s replaced when asked (att: its
 * attention), its prefix as given. */
static int hyp_text(stream *s, const line_job *j, const nmt_hyp *h, const float *att, nmt_strbuf *line) {
  bool unk = s->o->replace_unk && has_unk(h);
  if (!unk && !j->pre_n) return nmt_text_target(s->text, h->ids, h->n, line);
  nmt_strbuf toks = {0}, head = {0};
  int st = unk ? unk_replaced(s, j, h, att, &toks) : nmt_ids_text(s->tgt, h->ids, h->n, false, &toks);
  if (!st && j->pre_n) /* the prefix's tokens, unchanged (a prefix has no <unk>) */
    st = nmt_ids_text(s->tgt, h->ids, j->pre_n < h->n ? j->pre_n : h->n, false, &head);
  if (!st && j->pre_n)
    st = nmt_prefix_output(s->text, toks.s ? toks.s : "", toks.len, head.len, j->given.s ? j->given.s : "",
                           j->given.len, line);
  else if (!st)
    st = nmt_text_output(s->text, toks.s ? toks.s : "", toks.len, line);
  free(toks.s), free(head.s);
  return st;
}

/* One output line: hypothesis h (NULL: an empty line) of input line j, number
 * `lineno`, with its alignment from `att` when asked. */
static int write_hyp(stream *s, nmt_writer *w, const line_job *j, long lineno, const nmt_hyp *h, const float *att,
                     nmt_strbuf *line) {
  line->len = 0;
  int st = NMT_OK;
  if (s->o->n_best) {
    char head[32];
    if (nmt_strbuf_add(line, head, (size_t)snprintf(head, sizeof head, "%ld ||| ", lineno)))
      st = nmt_fail(NMT_EIO, "out of memory");
  }
  if (!st && h) st = hyp_text(s, j, h, att, line);
  if (!st && s->o->alignment && nmt_strbuf_add(line, " ||| ", 5)) st = nmt_fail(NMT_EIO, "out of memory");
  if (!st && s->o->alignment && h)
    st = nmt_attention_text(line, att, h->n, j->n, s->o->alignment, s->o->align_threshold);
  if (!st && s->o->n_best) { /* Marian's features field (one feature, F0: the model) and total */
    char score[96];
    double v = h ? (double)h->score : 0.0;
    st = nmt_strbuf_add(line, score, (size_t)snprintf(score, sizeof score, " ||| F0= %.6f ||| %.6f", v, v));
  }
  return st ? st : nmt_writer_line(w, line->s ? line->s : "", line->len);
}

/* DIR/N.svg: the attention picture of line j's best translation (N: the line, 0-based). */
static int write_svg(stream *s, const line_job *j, long lineno) {
  const nmt_hyp *h = &j->out.hyps[0];
  char path[4096];
  nmt_strbuf svg = {0};
  nmt_writer *w = NULL;
  int st = nmt_attention_svg_ids(&svg, j->src.s, j->src.len, j->n, s->tgt, h->ids, h->n, j->att);
  if (!st && snprintf(path, sizeof path, "%s/%ld.svg", s->o->attention_svg, lineno) >= (int)sizeof path)
    st = nmt_fail(NMT_EUSAGE, "%s: too long a folder name", s->o->attention_svg);
  if (!st) st = nmt_writer_open(&w, path, 0);
  if (!st) st = nmt_writer_write(w, svg.s, svg.len);
  if (w) st = st ? (nmt_writer_abort(w), st) : nmt_writer_commit(w);
  free(svg.s);
  return st;
}

static int write_window(stream *s, int n, nmt_writer *w) {
  nmt_strbuf line = {0};
  int st = NMT_OK;
  for (int i = 0; i < n && !st; i++) {
    const line_job *j = &s->jobs[i];
    if (j->out.unmet) {
      char msg[512];
      snprintf(msg, sizeof msg, "%s:%ld: no hypothesis met every constraint; the line is translated without them",
               nmt_reader_name(s->o->constraints), j->lineno + 1);
      warn(s, msg);
    }
    int shown = s->o->n_best ? j->out.n : 1;
    size_t at = 0;
    for (int h = 0; h < shown && !st; h++) {
      const nmt_hyp *hyp = j->out.n ? &j->out.hyps[h] : NULL;
      st = write_hyp(s, w, j, s->first + i, hyp, j->att ? j->att + at : NULL, &line);
      at += hyp ? (size_t)hyp->n * (j->n + 1) : 0;
    }
    if (!st && s->o->n_best && !j->out.n) st = write_hyp(s, w, j, s->first + i, NULL, NULL, &line);
    if (!st && s->o->attention_svg && j->out.n) st = write_svg(s, j, s->first + i);
  }
  for (int i = 0; i < n; i++) nmt_nbest_free(&s->jobs[i].out);
  free(line.s);
  return st;
}

/* Line `lineno`'s prefix into j; its tokens must be among those the search scores (--shortlist). */
static int read_prefix(stream *s, line_job *j, long lineno) {
  const nmt_search_opts *o = &s->o->search;
  int st = nmt_prefix_read(s->o->prefix, lineno, s->text, s->tgt, &j->pre, &j->pre_n, &j->pre_cap, &j->given);
  int W = nmt_step_width(o->shortlist, o->beam, nmt_vocab_size(s->tgt));
  for (int i = 0; i < j->pre_n && !st; i++)
    if (j->pre[i] >= W)
      st = nmt_fail(NMT_EINPUT, "%s:%ld: '%s' is not among the %d target words --shortlist %d scores (a prefix's "
                    "tokens must be)", nmt_reader_name(s->o->prefix), lineno, nmt_vocab_token(s->tgt, j->pre[i]), W,
                    o->shortlist);
  return st;
}

/* Line `lineno`'s constraints into j (its source read): ones the search cannot meet (words
 * the target vocabulary or --shortlist N cannot spell, too many tokens for the length
 * limit) are dropped with a warning. */
static int read_constraints(stream *s, line_job *j, long lineno) {
  const nmt_search_opts *o = &s->o->search;
  char why[400], msg[512];
  int st = nmt_terms_read(s->o->constraints, lineno, s->text, s->tgt, &j->cons, &j->cons_n, &j->cons_cap, why,
                          sizeof why);
  int W = nmt_step_width(o->shortlist, o->beam, nmt_vocab_size(s->tgt)), C = 0;
  for (int i = 0; i < j->cons_n && !st && !why[0]; i++)
    if (j->cons[i] >= W)
      snprintf(why, sizeof why, "'%s' is not among the %d target words --shortlist %d scores",
               nmt_vocab_token(s->tgt, j->cons[i]), W, o->shortlist);
    else C += j->cons[i] >= 0;
  int limit = nmt_search_limit(o, j->n, j->pre_n);
  if (!st && !why[0] && (C > NMT_CONS_MAX || C + j->pre_n > limit))
    snprintf(why, sizeof why, "%d constraint tokens do not fit in %s", C,
             C > NMT_CONS_MAX ? "the search's 64" : "the length limit (--max-length-factor)");
  if (st || !why[0]) return st;
  j->cons_n = 0;
  snprintf(msg, sizeof msg, "%s:%ld: %s; the line is translated without constraints",
           nmt_reader_name(s->o->constraints), lineno, why);
  warn(s, msg);
  return NMT_OK;
}

/* The ids of one input line (and of its prefix); a line that cannot be translated (invalid UTF-8)
 * is left empty with a warning, one over --max-length is cut. */
static int read_line(stream *s, line_job *j, const char *line, size_t len, const char *name, long lineno) {
  char msg[512];
  j->n = 0, j->cons_n = 0, j->lineno = lineno - 1;
  int st = s->o->prefix ? read_prefix(s, j, lineno) : NMT_OK;
  if (st) return st;
  if (nmt_utf8_check_line(line, len, name, lineno)) {
    snprintf(msg, sizeof msg, "%s; its output line is empty", nmt_errmsg());
    warn(s, msg);
    return NMT_OK;
  }
  const char *toks;
  size_t ntoks;
  st = nmt_text_source(s->text, line, len, &toks, &ntoks);
  if (!st) st = nmt_vocab_encode(s->src, toks, ntoks, &j->ids, &j->n, &j->cap);
  j->src.len = 0;
  if (!st && (s->o->replace_unk || s->o->attention_svg) && nmt_strbuf_add(&j->src, toks, ntoks))
    st = nmt_fail(NMT_EIO, "out of memory");
  if (!st && j->n > s->o->max_length) {
    snprintf(msg, sizeof msg, "%s:%ld: %d subwords, translating the first %d (--max-length)", name, lineno,
             j->n, s->o->max_length);
    warn(s, msg);
    j->n = s->o->max_length;
  }
  if (!st && s->o->constraints && j->n) st = read_constraints(s, j, lineno);
  return st;
}

/* Read up to `cap` lines into jobs; returns how many (0 at the end), -1 on error.
 * When the input stalls, a partial window is returned to be answered now, and with
 * nothing read yet the answers so far are flushed before waiting. */
static int read_window(stream *s, nmt_reader *r, nmt_writer *w, int cap) {
  int n = 0, k = 0;
  char *line;
  size_t len;
  while (n < cap) {
    if (nmt_reader_stalled(r)) {
      if (n) break;
      if (nmt_writer_flush(w)) return -1;
    }
    if ((k = nmt_reader_next(r, &line, &len)) != 1) break;
    if (read_line(s, &s->jobs[n++], line, len, nmt_reader_name(r), nmt_reader_lineno(r))) return -1;
  }
  return k < 0 ? -1 : n;
}

int nmt_decode_stream(const nmt_models *e, const nmt_model *first, nmt_text *text, const nmt_decode_opts *o,
                      nmt_reader *r, nmt_writer *w) {
  int cap = o->mini_batch * o->maxi_batch;
  int threads = o->threads < 1 ? 1 : o->threads > NMT_MAX_DECODE_THREADS ? NMT_MAX_DECODE_THREADS : o->threads;
  stream s = {.e = e, .src = first->src, .tgt = first->tgt, .o = o, .threads = threads, .text = text,
              .dec = calloc((size_t)threads, sizeof(nmt_dec)), .jobs = calloc((size_t)cap, sizeof(line_job)),
              .order = malloc(sizeof(int) * (size_t)cap), .sents = malloc(sizeof(nmt_sent) * (size_t)cap),
              .outs = malloc(sizeof(nmt_nbest) * (size_t)cap)};
  bool ok = s.dec && s.jobs && s.order && s.sents && s.outs;
  int st = ok ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
  for (int n; !st && (n = read_window(&s, r, w, cap)) != 0; s.first += n) {
    if (n < 0) st = nmt_errcode();
    if (!st) st = translate_window(&s, n);
    if (!st) st = write_window(&s, n, w);
  }
  if (!st && o->prefix && o->prefix_to_end) st = nmt_prefix_end(o->prefix, r);
  if (!st && o->constraints && o->prefix_to_end) st = nmt_terms_end(o->constraints, r);
  for (int i = 0; s.jobs && i < cap; i++) {
    line_job *j = &s.jobs[i];
    free(j->ids), free(j->att), free(j->src.s), free(j->pre), free(j->given.s), free(j->cons);
  }
  free(s.jobs), free(s.order), free(s.sents), free(s.outs);
  for (int i = 0; s.dec && i < threads; i++) nmt_dec_free(&s.dec[i]);
  free(s.dec);
  return st;
}

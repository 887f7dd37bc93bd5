/* Dynamic batching: the HTTP threads queue their requests' sentences, and one
 * batcher thread takes whatever is queued (never waiting for more, so a lone
 * sentence goes at once) up to --max-batch-words, sorts it by length into
 * mini-batches and decodes them over the decoding threads, as nmt-decode
 * decodes a window (lib/decode/stream.c). Under load the queue fills while a
 * round decodes, so the next round's batches are full. */
#include "base/err.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "decode/align.h"
#include "decode/search.h"
#include "decode/stream.h"
#include "decode/text.h"
#include "nn/parallel.h"
#include "serve_tool.h"
#include "tool.h"
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A queued sentence: sentence i of request r. */
typedef struct {
  serve_req *r;
  int i;
} sent;

/* A sentence of the round being decoded. */
typedef struct {
  sent s;
  int *ids, n, cap;
  nmt_nbest out;
  float *att; /* (out.hyps[0].n, n + 1) the best hypothesis's attention (nmt_attention's rows) */
} job;

/* A decoding thread's decoder and batch buffers. */
typedef struct {
  nmt_dec dec;
  const int **src, **tgt;
  int *len, *tgt_n;
  float **att;
  nmt_nbest *out;
  int status;
  char msg[256]; /* its error (messages are per thread) */
} worker;

struct serve_batcher {
  const nmt_model *m;
  const serve_args *a;
  nmt_text *text;
  pthread_mutex_t mu;
  pthread_cond_t more;
  sent *q;
  int qn, qcap;
  bool stop;
  nmt_pool thread;
  int threads;
  worker w[NMT_MAX_DECODE_THREADS];
  job *jobs; /* the round's sentences, by length */
  int njobs, jobs_cap;
  int beam;  /* the round's beam size: one search per round */
  int batch; /* the round's mini-batch size */
};

int serve_batcher_queued(serve_batcher *b) {
  pthread_mutex_lock(&b->mu);
  int n = b->qn;
  pthread_mutex_unlock(&b->mu);
  return n;
}

void serve_translate(serve_batcher *b, serve_req *r) {
  pthread_cond_init(&r->done, NULL);
  pthread_mutex_lock(&b->mu);
  if (b->qn + r->n > b->qcap) {
    int cap = b->qcap * 2 > b->qn + r->n ? b->qcap * 2 : b->qn + r->n + 64;
    sent *q = realloc(b->q, sizeof *q * (size_t)cap);
    if (q) b->q = q, b->qcap = cap;
  }
  if (b->qn + r->n > b->qcap) {
    r->status = 503, snprintf(r->err, sizeof r->err, "out of memory");
  } else {
    for (int i = 0; i < r->n; i++) b->q[b->qn++] = (sent){r, i};
    pthread_cond_signal(&b->more);
    while (r->left > 0) pthread_cond_wait(&r->done, &b->mu);
  }
  pthread_mutex_unlock(&b->mu);
  pthread_cond_destroy(&r->done);
}

/* Take the next round from the queue (lock held): the queued sentences with the
 * first one's beam size, in order, up to --max-batch-words words (at least one). */
static bool take_round(serve_batcher *b) {
  if (b->qn > b->jobs_cap) {
    job *j = realloc(b->jobs, sizeof *j * (size_t)b->qn);
    if (!j) return false;
    memset(j + b->jobs_cap, 0, sizeof *j * (size_t)(b->qn - b->jobs_cap));
    b->jobs = j, b->jobs_cap = b->qn;
  }
  b->beam = b->q[0].r->beam;
  long words = 0;
  int kept = 0;
  b->njobs = 0;
  for (int i = 0; i < b->qn; i++) {
    sent s = b->q[i];
    int w = s.r->words[s.i];
    if (s.r->beam == b->beam && (!b->njobs || words + w <= b->a->max_batch_words)) {
      b->jobs[b->njobs++].s = s;
      words += w;
    } else {
      b->q[kept++] = s;
    }
  }
  b->qn = kept;
  return true;
}

static int by_length(const void *x, const void *y) {
  const job *a = x, *b = y;
  return a->n != b->n ? a->n - b->n : a->s.r != b->s.r ? (a->s.r < b->s.r ? -1 : 1) : a->s.i - b->s.i;
}

/* The best hypotheses' attention of the jobs [at, at+nb) that ask for alignments. */
static int align_batch(serve_batcher *b, worker *w, int at, int nb) {
  int R = 0;
  for (int k = at; k < at + nb; k++) {
    job *j = &b->jobs[k];
    if (!j->s.r->alignment || !j->out.n) continue;
    free(j->att);
    size_t n = (size_t)j->out.hyps[0].n * (size_t)(j->n + 1);
    if (!(j->att = malloc(sizeof *j->att * (n ? n : 1)))) return nmt_fail(NMT_EIO, "out of memory");
    w->src[R] = j->ids, w->len[R] = j->n, w->tgt[R] = j->out.hyps[0].ids, w->tgt_n[R] = j->out.hyps[0].n;
    w->att[R++] = j->att;
  }
  return R ? nmt_attention(&w->dec, NMT_ONE_MODEL(&b->m->net, (nn_params *)&b->m->params), w->src, w->len, w->tgt,
                           w->tgt_n, R, w->att)
           : NMT_OK;
}

/* Worker `part`'s mini-batches: part, part + parts, ... of the sorted jobs. */
static void decode_share(void *ctx, int part, int parts) {
  serve_batcher *b = ctx;
  worker *w = &b->w[part];
  int B = b->batch, st = NMT_OK;
  nmt_search_opts o = {b->beam, (float)b->a->normalize, (float)b->a->max_length_factor, 0};
  if (parts > 1) nn_parallel_nested(true);
  for (int at = part * B; !st && at < b->njobs; at += parts * B) {
    int nb = 0;
    for (int k = at; k < at + B && k < b->njobs; k++)
      if (b->jobs[k].n) w->src[nb] = b->jobs[k].ids, w->len[nb++] = b->jobs[k].n;
    if (!nb) continue;
    st = nmt_search(&w->dec, NMT_ONE_MODEL(&b->m->net, (nn_params *)&b->m->params), w->src, w->len, nb, &o, w->out);
    for (int k = at, i = 0; !st && k < at + B && k < b->njobs; k++)
      if (b->jobs[k].n) b->jobs[k].out = w->out[i++];
    if (!st) st = align_batch(b, w, at, at + B < b->njobs ? B : b->njobs - at);
  }
  nn_parallel_nested(false);
  w->status = st;
  if (st) snprintf(w->msg, sizeof w->msg, "%s", nmt_errmsg());
}

/* The round's source ids; a sentence over --max-length subwords is cut, as nmt-decode does. */
static int encode_round(serve_batcher *b) {
  for (int k = 0; k < b->njobs; k++) {
    job *j = &b->jobs[k];
    const char *toks, *line = j->s.r->src[j->s.i];
    size_t ntoks;
    j->n = 0;
    int st = nmt_text_source(b->text, line, strlen(line), &toks, &ntoks);
    if (!st) st = nmt_vocab_encode(b->m->src, toks, ntoks, &j->ids, &j->n, &j->cap);
    if (st) return st;
    if (j->n > b->a->max_length) {
      nmt_warn(PROG, "a sentence of %d subwords: translating the first %ld (--max-length)", j->n, b->a->max_length);
      j->n = (int)b->a->max_length;
    }
  }
  return NMT_OK;
}

/* The round over the decoding threads. A round is often smaller than one
 * --mini-batch, so it is cut into one mini-batch per thread, each thread with
 * one BLAS thread (small GEMMs gain more from threads of their own than from a
 * split GEMM); a lone sentence gets them all as BLAS threads (batch-1 latency,
 * as nmt-decode's). */
static int decode_round(serve_batcher *b) {
  int st = encode_round(b);
  if (st) return st;
  qsort(b->jobs, (size_t)b->njobs, sizeof *b->jobs, by_length);
  int per_thread = (b->njobs + b->threads - 1) / b->threads;
  b->batch = per_thread < b->a->mini_batch ? per_thread : (int)b->a->mini_batch;
  int batches = (b->njobs + b->batch - 1) / b->batch;
  int parts = batches < b->threads ? batches : b->threads;
  openblas_set_num_threads(parts > 1 ? 1 : b->threads);
  nmt_pool_run(parts, decode_share, b);
  for (int p = 0; p < parts; p++)
    if (b->w[p].status) return nmt_fail(b->w[p].status, "%s", b->w[p].msg);
  return NMT_OK;
}

/* "s-t s-t ...": the hard alignment of job j's best hypothesis, as nmt-decode --alignment writes it. */
static json_t *alignment_text(const job *j) {
  nmt_strbuf s = {0};
  int st = nmt_strbuf_reserve(&s, 0);
  if (!st) st = nmt_attention_text(&s, j->att, j->out.hyps[0].n, j->n, NMT_ALIGN_HARD, 0);
  json_t *v = st ? NULL : json_stringn(s.s ? s.s : "", s.len);
  free(s.s);
  return v;
}

/* Job j's answers into its request's arrays. */
static int answer(serve_batcher *b, job *j, nmt_strbuf *text) {
  serve_req *r = j->s.r;
  json_t *list = json_array_get(r->nbest, (size_t)j->s.i);
  int shown = r->n_best ? j->out.n : j->out.n ? 1 : 0;
  for (int h = 0; h < shown; h++) {
    text->len = 0;
    int st = nmt_text_target(b->text, j->out.hyps[h].ids, j->out.hyps[h].n, text);
    json_t *s = st ? NULL : json_stringn(text->s ? text->s : "", text->len);
    if (!s) return st ? st : nmt_fail(NMT_EIO, "out of memory");
    if (!h) json_array_set(r->out, (size_t)j->s.i, s);
    if (r->n_best && json_array_append_new(list, json_pack("{s:o, s:f}", "translation", json_incref(s), "score",
                                                            (double)j->out.hyps[h].score)))
      st = nmt_fail(NMT_EIO, "out of memory");
    json_decref(s);
    if (st) return st;
  }
  if (r->alignment && j->out.n &&
      json_array_set_new(r->align, (size_t)j->s.i, alignment_text(j)))
    return nmt_fail(NMT_EIO, "out of memory");
  return NMT_OK;
}

/* Answer the round's sentences (or fail their requests with st) and wake the
 * requests that are complete. */
static void finish_round(serve_batcher *b, int st) {
  nmt_strbuf text = {0};
  for (int k = 0; k < b->njobs && !st; k++) st = answer(b, &b->jobs[k], &text);
  free(text.s);
  pthread_mutex_lock(&b->mu);
  for (int k = 0; k < b->njobs; k++) {
    serve_req *r = b->jobs[k].s.r;
    if (st && !r->status) r->status = 500, snprintf(r->err, sizeof r->err, "%s", nmt_errmsg());
    if (--r->left == 0) pthread_cond_signal(&r->done);
    nmt_nbest_free(&b->jobs[k].out);
  }
  pthread_mutex_unlock(&b->mu);
  if (st) nmt_warn(PROG, "%s", nmt_errmsg());
}

static void batcher_main(void *ctx, int part, int parts) {
  serve_batcher *b = ctx;
  pthread_mutex_lock(&b->mu);
  for (;;) {
    while (!b->qn && !b->stop) pthread_cond_wait(&b->more, &b->mu);
    if (!b->qn) break;
    bool taken = take_round(b);
    pthread_mutex_unlock(&b->mu);
    finish_round(b, taken ? decode_round(b) : nmt_fail(NMT_EIO, "out of memory"));
    pthread_mutex_lock(&b->mu);
  }
  pthread_mutex_unlock(&b->mu);
}

static void batcher_free(serve_batcher *b) {
  for (int i = 0; i < NMT_MAX_DECODE_THREADS; i++) {
    worker *w = &b->w[i];
    nmt_dec_free(&w->dec);
    free(w->src), free(w->tgt), free(w->len), free(w->tgt_n), free(w->att), free(w->out);
  }
  for (int k = 0; k < b->jobs_cap; k++) free(b->jobs[k].ids), free(b->jobs[k].att);
  free(b->jobs), free(b->q);
  nmt_text_free(b->text);
  pthread_mutex_destroy(&b->mu), pthread_cond_destroy(&b->more);
  free(b);
}

int serve_batcher_start(serve_batcher **bp, const nmt_model *m, const serve_args *a) {
  serve_batcher *b = calloc(1, sizeof *b);
  if (!b) return nmt_fail(NMT_EIO, "out of memory");
  *b = (serve_batcher){.m = m, .a = a, .threads = (int)a->threads};
  pthread_mutex_init(&b->mu, NULL), pthread_cond_init(&b->more, NULL);
  int st = nmt_text_new(&b->text, m, a->model, !a->bpe_input, !a->no_postprocess);
  size_t B = (size_t)a->mini_batch;
  for (int i = 0; !st && i < b->threads; i++) {
    worker *w = &b->w[i];
    w->src = malloc(sizeof *w->src * B), w->tgt = malloc(sizeof *w->tgt * B), w->len = malloc(sizeof *w->len * B);
    w->tgt_n = malloc(sizeof *w->tgt_n * B), w->att = malloc(sizeof *w->att * B), w->out = malloc(sizeof *w->out * B);
    if (!w->src || !w->tgt || !w->len || !w->tgt_n || !w->att || !w->out) st = nmt_fail(NMT_EIO, "out of memory");
  }
  if (!st && nmt_pool_start(&b->thread, 0, 1, batcher_main, b) != 1) st = nmt_fail(NMT_EIO, "cannot start the batcher thread");
  if (st) batcher_free(b), b = NULL;
  *bp = b;
  return st;
}

void serve_batcher_stop(serve_batcher *b) {
  pthread_mutex_lock(&b->mu);
  b->stop = true;
  pthread_cond_signal(&b->more);
  pthread_mutex_unlock(&b->mu);
  nmt_pool_join(&b->thread);
  batcher_free(b);
}

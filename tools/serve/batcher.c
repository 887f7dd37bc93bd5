/* Dynamic batching: the HTTP threads queue their requests' sentences, and
 * --threads decoding lanes take them. A free lane takes its share of the
 * sentences in flight (queued, or decoding in other lanes, over the lanes),
 * waiting briefly for them when fewer are queued, sorts its round by length
 * and decodes it in mini-batches on its own decoder. The lanes run out of
 * phase: while one answers its clients and waits for their next sentences,
 * the others decode (a round over all threads at once left every thread idle
 * in those gaps, and its rounds settled into groups of ~15 and ~1 under 16
 * one-sentence clients). A lane decoding alone, nothing else queued, gets
 * every thread as BLAS threads: a lone sentence is decoded at batch-1 speed. */
#include "base/err.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "decode/align.h"
#include "decode/search.h"
#include "decode/stream.h"
#include "decode/svg.h"
#include "decode/text.h"
#include "nn/parallel.h"
#include "serve_tool.h"
#include "tool.h"
#include <cblas.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A queued sentence: sentence i of request r. */
typedef struct {
  serve_req *r;
  int i;
} sent;

/* A sentence of a lane's round. */
typedef struct {
  sent s;
  int *ids, n, cap;
  nmt_strbuf toks; /* its source tokens (the SVG's labels) */
  nmt_nbest out;
  float *att; /* (out.hyps[0].n, n + 1) the best hypothesis's attention (nmt_attention's rows) */
} job;

/* A decoding lane: its thread's decoder, text handling, round and buffers. */
typedef struct {
  nmt_dec dec;
  const nmt_models *e;
  nmt_text *text;
  job *jobs;  /* the round's sentences, by length */
  int njobs, jobs_cap;
  int first;  /* jobs[first..njobs): those with ids */
  const int **src; /* (jobs_cap) their ids, lengths, hypotheses */
  int *len;
  nmt_nbest *out;
  const int **asrc, **tgt; /* (--mini-batch) an attention pass's rows */
  int *alen, *tgt_n;
  float **att;
  double round_s; /* how long its last round took */
} lane;

struct serve_batcher {
  const nmt_models *e;
  const nmt_model *first; /* its vocabularies read the text */
  const serve_args *a;
  pthread_mutex_t mu;
  pthread_cond_t more;
  sent *q;
  int qn, qcap;
  int decoding; /* sentences in the lanes' rounds */
  int busy;     /* lanes decoding */
  bool stop;
  nmt_pool threads;
  int lanes;
  lane l[NMT_MAX_DECODE_THREADS];
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
    pthread_cond_broadcast(&b->more);
    while (r->left > 0) pthread_cond_wait(&r->done, &b->mu);
  }
  pthread_mutex_unlock(&b->mu);
  pthread_cond_destroy(&r->done);
}

/* A free lane's share of the sentences in flight (lock held). */
static int share(const serve_batcher *b) {
  int n = b->qn + b->decoding;
  return (n + b->lanes - 1) / b->lanes;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Wait (lock held) until sentences are queued; then, for up to a quarter of
 * this lane's last round (50 ms at most), until its share is: the clients of
 * a round just answered send their next sentences within milliseconds, and a
 * lane that took the first alone would decode it alone. */
static void wait_for_round(serve_batcher *b, const lane *l) {
  while (!b->qn && !b->stop) pthread_cond_wait(&b->more, &b->mu);
  double wait = l->round_s / 4 < 0.05 ? l->round_s / 4 : 0.05;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  long ns = until.tv_nsec + (long)(wait * 1e9);
  until.tv_sec += ns / 1000000000L, until.tv_nsec = ns % 1000000000L;
  while (!b->stop && b->qn < share(b) && pthread_cond_timedwait(&b->more, &b->mu, &until) != ETIMEDOUT) {}
}

/* Take the lane's round from the queue (lock held): queued sentences with the
 * first one's beam size, in order, up to its share and --max-batch-words words
 * (at least one). */
static bool take_round(serve_batcher *b, lane *l) {
  if (b->qn > l->jobs_cap) {
    size_t n = (size_t)b->qn;
    job *j = realloc(l->jobs, sizeof *j * n);
    if (j) memset(j + l->jobs_cap, 0, sizeof *j * (n - (size_t)l->jobs_cap)), l->jobs = j;
    const int **src = realloc(l->src, sizeof *src * n);
    if (src) l->src = src;
    int *len = realloc(l->len, sizeof *len * n);
    if (len) l->len = len;
    nmt_nbest *out = realloc(l->out, sizeof *out * n);
    if (out) l->out = out;
    if (!j || !src || !len || !out) return false;
    l->jobs_cap = b->qn;
  }
  int beam = b->q[0].r->beam, most = share(b), kept = 0;
  long words = 0;
  l->njobs = 0;
  for (int i = 0; i < b->qn; i++) {
    sent s = b->q[i];
    int w = s.r->words[s.i];
    if (s.r->beam == beam && l->njobs < most && (!l->njobs || words + w <= b->a->max_batch_words)) {
      l->jobs[l->njobs++].s = s;
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

/* The round's source ids; a sentence over --max-length subwords is cut, as nmt-decode does. */
static int encode_round(serve_batcher *b, lane *l) {
  for (int k = 0; k < l->njobs; k++) {
    job *j = &l->jobs[k];
    const char *toks, *line = j->s.r->src[j->s.i];
    size_t ntoks;
    j->n = 0, j->toks.len = 0;
    int st = nmt_text_source(l->text, line, strlen(line), &toks, &ntoks);
    if (!st) st = nmt_vocab_encode(b->first->src, toks, ntoks, &j->ids, &j->n, &j->cap);
    if (!st && j->s.r->alignment == SERVE_ALIGN_SVG && nmt_strbuf_add(&j->toks, toks, ntoks)) st = nmt_fail(NMT_EIO, "out of memory");
    if (st) return st;
    if (j->n > b->a->max_length) {
      nmt_warn(PROG, "a sentence of %d subwords: translating the first %ld (--max-length)", j->n, b->a->max_length);
      j->n = (int)b->a->max_length;
    }
  }
  return NMT_OK;
}

/* After each mini-batch [at, at + nb) of a lane's round (nmt_decode_share):
 * the hypotheses into the jobs, and the best ones' attention where asked. */
static int batch_done(void *ctx, nmt_dec *d, int at, int nb) {
  lane *l = ctx;
  int R = 0;
  for (int k = at; k < at + nb; k++) {
    job *j = &l->jobs[l->first + k];
    j->out = l->out[k];
    if (!j->s.r->alignment || !j->out.n) continue;
    free(j->att);
    size_t n = (size_t)j->out.hyps[0].n * (size_t)(j->n + 1);
    if (!(j->att = malloc(sizeof *j->att * (n ? n : 1)))) return nmt_fail(NMT_EIO, "out of memory");
    l->asrc[R] = j->ids, l->alen[R] = j->n, l->tgt[R] = j->out.hyps[0].ids, l->tgt_n[R] = j->out.hyps[0].n;
    l->att[R++] = j->att;
  }
  return R ? nmt_attention(d, l->e, l->asrc, l->alen, l->tgt, l->tgt_n, R, l->att) : NMT_OK;
}

/* The lane's round, sorted by length, empty sentences first and left out
 * (their answer is empty), in mini-batches of --mini-batch. */
static int decode_round(serve_batcher *b, lane *l, int beam) {
  int st = encode_round(b, l);
  if (st) return st;
  qsort(l->jobs, (size_t)l->njobs, sizeof *l->jobs, by_length);
  for (l->first = 0; l->first < l->njobs && !l->jobs[l->first].n;) l->first++;
  int n = l->njobs - l->first;
  for (int k = 0; k < n; k++) l->src[k] = l->jobs[l->first + k].ids, l->len[k] = l->jobs[l->first + k].n;
  nmt_search_opts o = {beam, (float)b->a->normalize, (float)b->a->max_length_factor, 0};
  return nmt_decode_share(&l->dec, b->e, &o, l->src, l->len, n, (int)b->a->mini_batch, 0, 1, l->out, batch_done, l);
}

/* The alignment of job j's best hypothesis as asked: nmt-decode --alignment
 * hard or soft's text, or --attention-svg's picture. */
static json_t *alignment(const serve_batcher *b, const job *j) {
  nmt_strbuf s = {0};
  const nmt_hyp *h = &j->out.hyps[0];
  serve_align k = j->s.r->alignment;
  int st = nmt_strbuf_reserve(&s, 0);
  if (!st && k == SERVE_ALIGN_SVG)
    st = nmt_attention_svg_ids(&s, j->toks.s, j->toks.len, j->n, b->first->tgt, h->ids, h->n, j->att);
  else if (!st)
    st = nmt_attention_text(&s, j->att, h->n, j->n, k == SERVE_ALIGN_SOFT ? NMT_ALIGN_SOFT : NMT_ALIGN_HARD, 0);
  json_t *v = st ? NULL : json_stringn(s.s ? s.s : "", s.len);
  free(s.s);
  return v;
}

/* Job j's answers into its request's arrays. */
static int answer(serve_batcher *b, lane *l, job *j, nmt_strbuf *text) {
  serve_req *r = j->s.r;
  json_t *list = json_array_get(r->nbest, (size_t)j->s.i);
  int shown = r->n_best ? j->out.n : j->out.n ? 1 : 0;
  for (int h = 0; h < shown; h++) {
    text->len = 0;
    int st = nmt_text_target(l->text, j->out.hyps[h].ids, j->out.hyps[h].n, text);
    json_t *s = st ? NULL : json_stringn(text->s ? text->s : "", text->len);
    if (!s) return st ? st : nmt_fail(NMT_EIO, "out of memory");
    if (!h) json_array_set(r->out, (size_t)j->s.i, s);
    if (r->n_best && json_array_append_new(list, json_pack("{s:o, s:f}", "translation", json_incref(s), "score",
                                                            (double)j->out.hyps[h].score)))
      st = nmt_fail(NMT_EIO, "out of memory");
    json_decref(s);
    if (st) return st;
  }
  if (r->alignment && j->out.n && json_array_set_new(r->align, (size_t)j->s.i, alignment(b, j)))
    return nmt_fail(NMT_EIO, "out of memory");
  return NMT_OK;
}

/* Answer the round's sentences (or fail their requests with st) and wake the
 * requests that are complete (lock held). */
static void finish_round(serve_batcher *b, lane *l, int st) {
  nmt_strbuf text = {0};
  for (int k = 0; k < l->njobs && !st; k++) st = answer(b, l, &l->jobs[k], &text);
  free(text.s);
  for (int k = 0; k < l->njobs; k++) {
    serve_req *r = l->jobs[k].s.r;
    if (st && !r->status) r->status = 500, snprintf(r->err, sizeof r->err, "%s", nmt_errmsg());
    if (--r->left == 0) pthread_cond_signal(&r->done);
    nmt_nbest_free(&l->jobs[k].out);
  }
  if (st) nmt_warn(PROG, "%s", nmt_errmsg());
}

static void lane_main(void *ctx, int part, int parts) {
  serve_batcher *b = ctx;
  lane *l = &b->l[part];
  pthread_mutex_lock(&b->mu);
  for (;;) {
    wait_for_round(b, l);
    if (!b->qn) break; /* stopping, and nothing left */
    int beam = b->q[0].r->beam;
    bool taken = take_round(b, l);
    b->decoding += l->njobs, b->busy++;
    /* BLAS threads are one setting for the process: every thread for a lane
     * alone (a lone sentence, or a lane whose neighbours wait for their
     * clients), one each as soon as two decode (a wide lane goes on narrower) */
    bool wide = b->busy == 1 && !b->qn;
    openblas_set_num_threads(wide ? b->lanes : 1);
    pthread_mutex_unlock(&b->mu);
    nn_parallel_nested(!wide);
    double t0 = now_s();
    int st = taken ? decode_round(b, l, beam) : nmt_fail(NMT_EIO, "out of memory");
    l->round_s = now_s() - t0;
    pthread_mutex_lock(&b->mu);
    finish_round(b, l, st);
    b->decoding -= l->njobs, b->busy--;
  }
  pthread_cond_broadcast(&b->more); /* the other lanes see the end too */
  pthread_mutex_unlock(&b->mu);
}

static void batcher_free(serve_batcher *b) {
  for (int i = 0; i < NMT_MAX_DECODE_THREADS; i++) {
    lane *l = &b->l[i];
    nmt_dec_free(&l->dec);
    nmt_text_free(l->text);
    free(l->src), free(l->len), free(l->out), free(l->asrc), free(l->alen), free(l->tgt), free(l->tgt_n), free(l->att);
    for (int k = 0; k < l->jobs_cap; k++) free(l->jobs[k].ids), free(l->jobs[k].att), free(l->jobs[k].toks.s);
    free(l->jobs);
  }
  free(b->q);
  pthread_mutex_destroy(&b->mu), pthread_cond_destroy(&b->more);
  free(b);
}

int serve_batcher_start(serve_batcher **bp, const nmt_ensemble *e, const serve_args *a) {
  serve_batcher *b = calloc(1, sizeof *b);
  if (!b) return nmt_fail(NMT_EIO, "out of memory");
  *b = (serve_batcher){.e = &e->dec, .first = &e->model[0], .a = a, .lanes = (int)a->threads};
  pthread_mutex_init(&b->mu, NULL), pthread_cond_init(&b->more, NULL);
  size_t B = (size_t)a->mini_batch;
  int st = NMT_OK;
  for (int i = 0; !st && i < b->lanes; i++) {
    lane *l = &b->l[i];
    st = nmt_text_new(&l->text, b->first, a->models.v[0], !a->bpe_input, !a->no_postprocess);
    l->e = b->e;
    l->asrc = malloc(sizeof *l->asrc * B), l->alen = malloc(sizeof *l->alen * B), l->tgt = malloc(sizeof *l->tgt * B);
    l->tgt_n = malloc(sizeof *l->tgt_n * B), l->att = malloc(sizeof *l->att * B);
    if (!st && (!l->asrc || !l->alen || !l->tgt || !l->tgt_n || !l->att)) st = nmt_fail(NMT_EIO, "out of memory");
  }
  if (!st && nmt_pool_start(&b->threads, 0, b->lanes, lane_main, b) != b->lanes) {
    st = nmt_fail(NMT_EIO, "cannot start the decoding threads");
    pthread_mutex_lock(&b->mu);
    b->stop = true, pthread_cond_broadcast(&b->more);
    pthread_mutex_unlock(&b->mu);
    nmt_pool_join(&b->threads);
  }
  if (st) batcher_free(b), b = NULL;
  *bp = b;
  return st;
}

void serve_batcher_stop(serve_batcher *b) {
  pthread_mutex_lock(&b->mu);
  b->stop = true;
  pthread_cond_broadcast(&b->more);
  pthread_mutex_unlock(&b->mu);
  nmt_pool_join(&b->threads);
  batcher_free(b);
}

/* ---- h-http's minimal serve_batcher_cancel_all, for the drain of SIGTERM (http.c): the
 * batcher's own (cancellation of the sentences in the lanes too) replaces it. The
 * queued sentences leave the queue and their requests end with status; a request with
 * sentences in a lane's round ends when that round does. ---- */
void serve_batcher_cancel_all(serve_batcher *b, int status, const char *why) {
  pthread_mutex_lock(&b->mu);
  for (int i = 0; i < b->qn; i++) {
    serve_req *r = b->q[i].r;
    if (!r->status) r->status = status, snprintf(r->err, sizeof r->err, "%s", why);
    if (--r->left == 0) pthread_cond_signal(&r->done);
  }
  b->qn = 0;
  pthread_mutex_unlock(&b->mu);
}

/* Dynamic batching: the HTTP threads queue their requests, and --threads
 * decoding lanes take their sentences. A free lane takes a round of one
 * mini-batch at most: its share of the sentences in flight (queued, or
 * decoding in other lanes, over the lanes), one sentence from each queued
 * request in turn (a request's own by word count, so that a large request's
 * rounds are of even lengths), waiting briefly for them when fewer are queued;
 * it sorts the round by length and decodes it on its own decoder. A request
 * queued behind a large one is in the next round: it waits for one mini-batch,
 * not for the large request (a queue of sentences kept it behind all of them).
 * The lanes run out of phase: while one answers its clients and waits for
 * their next sentences, the others decode (a round over all threads at once
 * left every thread idle in those gaps, and its rounds settled into groups of
 * ~15 and ~1 under 16 one-sentence clients). A lane decoding alone, nothing
 * else queued, gets every thread as BLAS threads: a lone sentence is decoded
 * at batch-1 speed. A request that ends early (its client gone, its deadline,
 * an answer budget, serve_batcher_cancel_all) leaves the queue at once, and
 * its sentences in a lane's round are dropped when the round ends. */
#include "base/clock.h"
#include "base/err.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "decode/align.h"
#include "decode/prefix.h"
#include "decode/terms.h"
#include "decode/search.h"
#include "decode/stream.h"
#include "decode/svg.h"
#include "decode/text.h"
#include "nn/parallel.h"
#include "serve_tool.h"
#include "tool.h"
#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <string.h>
#include <time.h>

/* A sentence of a lane's round: sentence i of request r. */
typedef struct {
  serve_req *r;
  int i;
  int *ids, n, cap;
  int *pre, pre_n, pre_cap; /* its "prefix"'s target ids */
  int *cons, cons_n, cons_cap; /* its "constraints"' (nmt_sent.cons; 0: none, or none it can take) */
  char bad[300];   /* why its prefix or constraints cannot be taken (its request ends with 400), or "" */
  nmt_strbuf toks; /* its source tokens (the SVG's labels) */
  nmt_nbest out;
  float *att; /* (out.hyps[0].n, n + 1) the best hypothesis's attention (nmt_attention's rows) */
  json_t *text, *nbest, *align; /* its answer, built outside the lock */
  size_t bytes;                 /* their JSON bytes */
} job;

/* A decoding lane: its thread's decoder, text handling, round and buffers. */
typedef struct {
  nmt_dec dec;
  const nmt_models *e;
  nmt_text *text;
  job *jobs;  /* (--mini-batch) the round's sentences, by length once encoded */
  int njobs;
  const serve_req *search; /* the round's search: its first request's (beam, sampling) */
  int first;  /* jobs[first..njobs): those with ids */
  nmt_sent *sents; /* (--mini-batch) their sentences, hypotheses */
  nmt_nbest *out;
  const int **asrc, **tgt; /* (--mini-batch) an attention pass's rows */
  int *alen, *tgt_n;
  float **att;
  int *cand, cand_cap; /* the requests a round takes from (indices into reqs) */
  double round_s; /* how long its last round took */
} lane;

struct serve_batcher {
  const nmt_models *e;
  const nmt_model *first; /* its vocabularies read the text */
  const serve_args *a;
  serve_metrics *m;
  serve_cache *cache; /* NULL: none */
  pthread_mutex_t mu;
  pthread_cond_t more;
  serve_req **reqs; /* the requests in serve_translate, in the order rounds take from them */
  int nreqs, reqs_cap;
  int qn;       /* sentences queued */
  int decoding; /* sentences in the lanes' rounds */
  int busy;     /* lanes decoding */
  bool stop;
  int closed; /* serve_batcher_cancel_all's status: later requests end with it at once */
  char closed_why[128];
  nmt_pool threads;
  int lanes;
  lane l[NMT_MAX_DECODE_THREADS];
  bool *joins; /* the target tokens that join the next: where a constraint may start (nmt_terms_joins) */
};

/* An n-best entry's JSON bytes besides its translation's: {"translation":"","score":S}
 * and a comma, S at most 24 characters (jansson's %.17g). */
enum { NBEST_ENTRY_BYTES = 52 };
static const double POLL_S = 0.1; /* how often a waiting request asks whether its client has gone */

int serve_batcher_queued(serve_batcher *b) {
  pthread_mutex_lock(&b->mu);
  int n = b->qn;
  pthread_mutex_unlock(&b->mu);
  return n;
}

void serve_batcher_gauges(serve_batcher *b, serve_gauges *g) {
  pthread_mutex_lock(&b->mu);
  *g = (serve_gauges){.queued = b->qn, .busy = b->busy, .lanes = b->lanes, .cache = b->cache != NULL};
  pthread_mutex_unlock(&b->mu);
  serve_cache_stats s;
  if (b->cache) serve_cache_stats_get(b->cache, &s);
  if (b->cache) g->cache_hits = s.hits, g->cache_misses = s.misses, g->cache_bytes = s.bytes, g->cache_entries = s.entries;
}

/* The bytes of s[0..n) in a JSON string as jansson writes it, quotes left
 * out: UTF-8 as it is, '"', '\\' and \b \f \n \r \t as two, other controls \u00XX. */
static size_t json_bytes(const char *s, size_t n) {
  size_t k = n;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    k += c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t' ? 1 : c < 0x20 ? 5 : 0;
  }
  return k;
}

/* r's answer before any translation (serve_req_answer's, and its newline): each field
 * a list when "text" is, each sentence's "" or [] with a comma. */
static size_t skeleton_bytes(const serve_req *r) {
  size_t field = (r->list ? 2 : 0) + 3 * (size_t)r->n;
  return strlen("{\"translation\":}\n") + field + (r->n_best ? strlen(",\"n_best\":") + field : 0) +
         (r->alignment ? strlen(",\"alignment\":") + field : 0);
}

/* Wake r's thread when it can return: answered, or ended with no sentence in a lane (lock held). */
static void wake_if_done(serve_req *r) {
  if (!r->in_lanes && (r->status || !r->left)) pthread_cond_signal(&r->done);
}

/* End r with status and a one-line message, unless it has ended (lock held):
 * its queued sentences leave the queue and its answer so far is freed. */
static void end_request(serve_batcher *b, serve_req *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void end_request(serve_batcher *b, serve_req *r, int status, const char *fmt, ...) {
  if (r->status) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err, sizeof r->err, fmt, ap);
  va_end(ap);
  r->status = status;
  b->qn -= r->n - r->taken, r->taken = r->n;
  json_array_clear(r->out), json_array_clear(r->nbest), json_array_clear(r->align);
  wake_if_done(r);
}

/* One of r's sentences leaves a lane's round (lock held). */
static void release(serve_batcher *b, serve_req *r) {
  r->in_lanes--, b->decoding--;
  wake_if_done(r);
}

static bool add_request(serve_batcher *b, serve_req *r) {
  if (b->nreqs == b->reqs_cap) {
    int cap = b->reqs_cap ? 2 * b->reqs_cap : 64;
    serve_req **q = realloc(b->reqs, sizeof *q * (size_t)cap);
    if (!q) return false;
    b->reqs = q, b->reqs_cap = cap;
  }
  b->reqs[b->nreqs++] = r;
  return true;
}

static void remove_request(serve_batcher *b, const serve_req *r) {
  int i = 0;
  while (b->reqs[i] != r) i++;
  b->nreqs--;
  memmove(b->reqs + i, b->reqs + i + 1, sizeof *b->reqs * (size_t)(b->nreqs - i));
}

static int by_word_count(const void *x, const void *y, void *words) {
  int i = *(const int *)x, j = *(const int *)y, wi = ((const int *)words)[i], wj = ((const int *)words)[j];
  return wi != wj ? (wi < wj ? -1 : 1) : i - j;
}

/* r's sentences by word count, ties in order: the order the lanes take them in. */
static int *by_words(const serve_req *r) {
  int *o = malloc(sizeof *o * (size_t)r->n);
  for (int i = 0; o && i < r->n; i++) o[i] = i;
  if (o) qsort_r(o, (size_t)r->n, sizeof *o, by_word_count, r->words);
  return o;
}

/* Wait (lock held) until r is answered, or has ended and no lane holds its
 * sentences; meanwhile, every POLL_S, whether its client has gone or its deadline passed. */
static void wait_answered(serve_batcher *b, serve_req *r) {
  while (r->in_lanes || (!r->status && r->left)) {
    bool watch = !r->status && (r->gone || r->deadline > 0);
    if (watch && r->gone && r->gone(r->gone_ctx)) {
      end_request(b, r, 499, "the client has gone");
    } else if (watch && r->deadline > 0 && nmt_seconds() >= r->deadline) {
      end_request(b, r, 504, "the request was not answered within its time limit (\"timeout_ms\", --request-timeout)");
    } else if (watch) {
      double t = nmt_seconds() + POLL_S;
      struct timespec until = nmt_timespec(r->deadline > 0 && r->deadline < t ? r->deadline : t);
      pthread_cond_timedwait(&r->done, &b->mu, &until);
    } else {
      pthread_cond_wait(&r->done, &b->mu);
    }
  }
}

/* Sentence i of r's cache key (NULL: out of memory). */
static char *cache_key(const serve_req *r, int i, size_t *n) {
  return serve_cache_key(r->beam, r->n_best, (int)r->alignment, r->prefix ? r->prefix[i] : NULL,
                         r->cons ? r->cons[i] : NULL, r->src[i], n);
}

/* r's sentences found in the cache answered (before it is queued): they go first in
 * r->order, taken; the others, as they were, after them. */
static void from_cache(serve_batcher *b, serve_req *r) {
  int *hit = malloc(sizeof *hit * (size_t)r->n), *miss = malloc(sizeof *miss * (size_t)r->n), nh = 0, nm = 0;
  for (int k = 0; hit && miss && k < r->n; k++) {
    int i = r->order[k];
    size_t n;
    char *key = cache_key(r, i, &n);
    serve_cached c;
    bool found = key && serve_cache_get(b->cache, key, n, &c);
    free(key);
    if (found && c.bytes > (size_t)b->a->max_answer_bytes - r->bytes) /* the lanes say 413 */
      json_decref(c.text), json_decref(c.nbest), json_decref(c.align), found = false;
    if (!found) {
      miss[nm++] = i;
      continue;
    }
    if (c.text) json_array_set_new(r->out, (size_t)i, c.text); /* as deliver does: none, the default */
    if (c.nbest) json_array_set_new(r->nbest, (size_t)i, c.nbest);
    if (c.align) json_array_set_new(r->align, (size_t)i, c.align);
    r->bytes += c.bytes, r->left--, hit[nh++] = i;
    serve_metrics_sentence(b->m, c.src_n, c.tgt_n);
  }
  if (hit && miss) memcpy(r->order, hit, sizeof *hit * (size_t)nh), memcpy(r->order + nh, miss, sizeof *miss * (size_t)nm);
  if (hit && miss) r->taken = r->cached = nh;
  free(hit), free(miss);
}

void serve_translate(serve_batcher *b, serve_req *r) {
  const serve_args *a = b->a;
  r->bytes = skeleton_bytes(r);
  if (!r->n) return;
  if (r->n > a->max_queued)
    r->status = 413, snprintf(r->err, sizeof r->err, "%d sentences, more than the server's queue of %ld (--max-queued-sentences)",
                              r->n, a->max_queued);
  else if (r->bytes > (size_t)a->max_answer_bytes)
    r->status = 413, snprintf(r->err, sizeof r->err, "the answer would be over %ld bytes (--max-answer-bytes)", a->max_answer_bytes);
  else if (!(r->order = by_words(r)))
    r->status = 503, snprintf(r->err, sizeof r->err, "out of memory");
  if (r->status) return;
  if (b->cache && !r->sampling.kind) from_cache(b, r);
  if (!r->left) return free(r->order), (void)(r->order = NULL); /* every sentence from the cache */
  pthread_condattr_t ca;
  pthread_condattr_init(&ca), pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&r->done, &ca);
  pthread_condattr_destroy(&ca);
  pthread_mutex_lock(&b->mu);
  if (b->closed) {
    r->status = b->closed, snprintf(r->err, sizeof r->err, "%s", b->closed_why);
  } else if (b->qn + r->n > a->max_queued) {
    r->status = 503, snprintf(r->err, sizeof r->err, "%d sentences would pass the server's queue of %ld (--max-queued-sentences): "
                              "try again later", r->n, a->max_queued);
  } else if (!add_request(b, r)) {
    r->status = 503, snprintf(r->err, sizeof r->err, "out of memory");
  } else {
    b->qn += r->n - r->taken, r->queued_at = nmt_seconds();
    pthread_cond_broadcast(&b->more);
    wait_answered(b, r);
    remove_request(b, r);
  }
  pthread_mutex_unlock(&b->mu);
  pthread_cond_destroy(&r->done);
  free(r->order), r->order = NULL;
}

void serve_batcher_cancel_all(serve_batcher *b, int status, const char *why) {
  pthread_mutex_lock(&b->mu);
  b->closed = status, snprintf(b->closed_why, sizeof b->closed_why, "%s", why);
  for (int i = 0; i < b->nreqs; i++) end_request(b, b->reqs[i], status, "%s", why);
  pthread_mutex_unlock(&b->mu);
}

/* A free lane's round (lock held): its share of the sentences in flight, one mini-batch at most. */
static int round_size(const serve_batcher *b) {
  int n = (b->qn + b->decoding + b->lanes - 1) / b->lanes;
  return n < b->a->mini_batch ? n : (int)b->a->mini_batch;
}

/* Wait (lock held) until sentences are queued; then, for up to a quarter of
 * this lane's last round (50 ms at most), until its round is: the clients of
 * a round just answered send their next sentences within milliseconds, and a
 * lane that took the first alone would decode it alone. False: stopping, and
 * nothing queued. */
static bool wait_for_round(serve_batcher *b, const lane *l) {
  for (;;) {
    while (!b->qn) {
      if (b->stop) return false;
      pthread_cond_wait(&b->more, &b->mu);
    }
    double wait = l->round_s / 4 < 0.05 ? l->round_s / 4 : 0.05;
    struct timespec until = nmt_timespec(nmt_seconds() + wait);
    while (!b->stop && b->qn < round_size(b) && pthread_cond_timedwait(&b->more, &b->mu, &until) != ETIMEDOUT) {}
    if (b->qn) return true; /* else its requests ended meanwhile */
  }
}

/* a[0..n) rotated left by k. */
static void rotate(serve_req **a, int n, int k) {
  for (int pass = 0; pass < 3; pass++) {
    int i = pass == 1 ? k : 0, j = pass == 0 ? k : n;
    for (j--; i < j; i++, j--) {
      serve_req *t = a[i];
      a[i] = a[j], a[j] = t;
    }
  }
}

/* Take the lane's round (lock held): up to round_size sentences and
 * --max-batch-words words (at least one), one from each queued request in
 * turn, of those with the first one's search (beam size, sampling). The requests then rotate to
 * start after the last one taken from: the next round begins with those this
 * one did not reach. */
static void take_round(serve_batcher *b, lane *l) {
  if (l->cand_cap < b->nreqs) { /* failing, fewer requests take part */
    int *c = realloc(l->cand, sizeof *c * (size_t)b->nreqs);
    if (c) l->cand = c, l->cand_cap = b->nreqs;
  }
  int most = round_size(b), nc = 0, last = 0;
  for (int i = 0; i < b->nreqs && nc < l->cand_cap; i++)
    if (b->reqs[i]->taken < b->reqs[i]->n && (!nc || serve_req_same_search(b->reqs[i], b->reqs[l->cand[0]])))
      l->cand[nc++] = i;
  l->search = b->reqs[l->cand[0]];
  long words = 0;
  double now = nmt_seconds();
  for (l->njobs = 0; nc && l->njobs < most;) {
    int kept = 0;
    for (int c = 0; c < nc && l->njobs < most; c++) {
      serve_req *r = b->reqs[l->cand[c]];
      int i = r->order[r->taken];
      if (l->njobs && words + r->words[i] > b->a->max_batch_words) continue; /* its next ones are no shorter */
      if (r->taken == r->cached) serve_metrics_queue_wait(b->m, now - r->queued_at); /* its first sentence */
      l->jobs[l->njobs].r = r, l->jobs[l->njobs++].i = i;
      words += r->words[i], r->taken++, r->in_lanes++, b->qn--, b->decoding++;
      last = l->cand[c] > last ? l->cand[c] : last;
      if (r->taken < r->n) l->cand[kept++] = l->cand[c];
    }
    nc = kept;
  }
  rotate(b->reqs, b->nreqs, last + 1);
}

/* Job j's prefix ids, or in j->bad why it has none. */
static int encode_prefix(serve_batcher *b, lane *l, job *j) {
  const char *p = j->r->prefix ? j->r->prefix[j->i] : NULL;
  j->pre_n = 0, j->bad[0] = 0;
  int st = p ? nmt_prefix_ids(l->text, b->first->tgt, p, strlen(p), &j->pre, &j->pre_n, &j->pre_cap) : NMT_OK;
  if (st != NMT_EINPUT) return st;
  char where[32] = "\"prefix\"";
  if (j->r->list) snprintf(where, sizeof where, "\"prefix\"[%d]", j->i);
  snprintf(j->bad, sizeof j->bad, "%s: %s", where, nmt_errmsg());
  return NMT_OK;
}

/* Job j's constraints' ids (none when the target vocabulary cannot spell them: answered
 * unconstrained, as nmt-decode does with a warning), or in j->bad why a phrase is refused. */
static int encode_constraints(serve_batcher *b, lane *l, job *j) {
  const char *c = j->r->cons ? j->r->cons[j->i] : NULL;
  char why[200];
  j->cons_n = 0;
  int st = c && !j->bad[0] ? nmt_terms_ids(l->text, b->first->tgt, c, strlen(c), &j->cons, &j->cons_n, &j->cons_cap,
                                           why, sizeof why) : NMT_OK;
  if (st != NMT_EINPUT) return st;
  char where[40] = "\"constraints\"";
  if (j->r->list) snprintf(where, sizeof where, "\"constraints\"[%d]", j->i);
  snprintf(j->bad, sizeof j->bad, "%s: %s", where, nmt_errmsg());
  return NMT_OK;
}

/* The round's source, prefix and constraint ids; a sentence over --max-length subwords is cut, as nmt-decode does. */
static int encode_round(serve_batcher *b, lane *l) {
  for (int k = 0; k < l->njobs; k++) {
    job *j = &l->jobs[k];
    const char *toks, *line = j->r->src[j->i];
    size_t ntoks;
    j->n = 0, j->toks.len = 0;
    int st = encode_prefix(b, l, j);
    if (!st) st = encode_constraints(b, l, j);
    if (st) return st;
    st = nmt_text_source(l->text, line, strlen(line), &toks, &ntoks);
    if (!st) st = nmt_vocab_encode(b->first->src, toks, ntoks, &j->ids, &j->n, &j->cap);
    if (!st && j->r->alignment == SERVE_ALIGN_SVG && nmt_strbuf_add(&j->toks, toks, ntoks)) st = nmt_fail(NMT_EIO, "out of memory");
    if (st) return st;
    if (j->n > b->a->max_length) {
      nmt_warn(PROG, "a sentence of %d subwords: translating the first %ld (--max-length)", j->n, b->a->max_length);
      j->n = (int)b->a->max_length;
    }
  }
  return NMT_OK;
}

/* Job j's answer into its request's arrays, or dropped when the request has
 * ended or ends now (the job failed with st, or the answer passes
 * --max-answer-bytes); then the lane no longer holds it (lock held). */
static void deliver(serve_batcher *b, job *j, int st) {
  serve_req *r = j->r;
  if (st) end_request(b, r, 500, "%s", nmt_errmsg());
  if (!r->status && j->bytes > (size_t)b->a->max_answer_bytes - r->bytes)
    end_request(b, r, 413, "the answer is over %ld bytes (--max-answer-bytes)", b->a->max_answer_bytes);
  if (!r->status) {
    if (j->text) json_array_set_new(r->out, (size_t)j->i, j->text);
    if (j->nbest) json_array_set_new(r->nbest, (size_t)j->i, j->nbest);
    if (j->align) json_array_set_new(r->align, (size_t)j->i, j->align);
    r->bytes += j->bytes, r->left--;
    serve_metrics_sentence(b->m, j->n, j->out.n ? j->out.hyps[0].n : 0);
  } else {
    json_decref(j->text), json_decref(j->nbest), json_decref(j->align);
  }
  j->text = j->nbest = j->align = NULL, j->bytes = 0;
  nmt_nbest_free(&j->out);
  free(j->att), j->att = NULL;
  release(b, r);
}

/* Before decoding (lock held): a sentence whose prefix cannot be taken ends its request
 * with 400, one whose alignment grid, (source subwords + 1) × the target length bound
 * (--max-length-factor, or its prefix and a token), could pass --max-alignment-cells with
 * 413; the sentences of requests that have ended leave the round. */
static void prune_round(serve_batcher *b, lane *l) {
  int kept = 0;
  for (int k = 0; k < l->njobs; k++) {
    job *j = &l->jobs[k];
    serve_req *r = j->r;
    /* the search's bound: at most ceil(F × (source subwords + 1)) target subwords (decode/search.c) */
    double rows = ceilf((float)b->a->max_length_factor * (float)(j->n + 1));
    rows = rows > j->pre_n ? rows : j->pre_n + 1;
    double cells = rows * (j->n + 1);
    if (j->bad[0]) end_request(b, r, 400, "%s", j->bad);
    if (r->alignment && cells > (double)b->a->max_alignment_cells) {
      char where[32] = "\"text\"";
      if (r->list) snprintf(where, sizeof where, "\"text\"[%d]", j->i);
      end_request(b, r, 413, "%s: %d subwords, an alignment grid of up to %.0f cells, more than the server's limit of %ld "
                  "(--max-alignment-cells)", where, j->n, cells, b->a->max_alignment_cells);
    }
    if (r->status) {
      deliver(b, j, NMT_OK);
      continue;
    }
    job t = l->jobs[kept]; /* the jobs' buffers move with them */
    l->jobs[kept++] = *j, *j = t;
  }
  l->njobs = kept;
}

/* After each mini-batch [at, at + nb) of a lane's round (nmt_decode_share):
 * the hypotheses into the jobs, and the best ones' attention where asked. */
static int batch_done(void *ctx, nmt_dec *d, int at, int nb) {
  lane *l = ctx;
  int R = 0;
  for (int k = at; k < at + nb; k++) {
    job *j = &l->jobs[l->first + k];
    j->out = l->out[k];
    if (!j->r->alignment || !j->out.n) continue;
    free(j->att);
    size_t n = (size_t)j->out.hyps[0].n * (size_t)(j->n + 1);
    if (!(j->att = malloc(sizeof *j->att * (n ? n : 1)))) return nmt_fail(NMT_EIO, "out of memory");
    l->asrc[R] = j->ids, l->alen[R] = j->n, l->tgt[R] = j->out.hyps[0].ids, l->tgt_n[R] = j->out.hyps[0].n;
    l->att[R++] = j->att;
  }
  return R ? nmt_attention(d, l->e, l->asrc, l->alen, l->tgt, l->tgt_n, R, l->att) : NMT_OK;
}

static int by_length(const void *x, const void *y) {
  const job *a = x, *b = y;
  return a->n != b->n ? a->n - b->n : a->r != b->r ? (a->r < b->r ? -1 : 1) : a->i - b->i;
}

/* The lane's round, sorted by length, empty sentences first and left out
 * (their answer is empty), in one mini-batch. */
static int decode_round(serve_batcher *b, lane *l) {
  qsort(l->jobs, (size_t)l->njobs, sizeof *l->jobs, by_length);
  for (l->first = 0; l->first < l->njobs && !l->jobs[l->first].n;) l->first++;
  int n = l->njobs - l->first;
  for (int k = 0; k < n; k++) {
    const job *j = &l->jobs[l->first + k];
    l->sents[k] = (nmt_sent){j->ids, j->n, j->pre, j->pre_n, j->r->seed, (uint64_t)j->i, .cons = j->cons,
                             .cons_n = j->cons_n};
  }
  nmt_search_opts o = {l->search->beam, (float)b->a->normalize, (float)b->a->max_length_factor,
                       b->a->shortlist_spec.frequent, l->search->sampling, b->a->lex.ntgt ? &b->a->lex : NULL,
                       b->joins};
  return nmt_decode_share(&l->dec, b->e, &o, l->sents, n, (int)b->a->mini_batch, NULL, batch_done, l, l->out);
}

/* A JSON string of s, its JSON bytes added to *bytes; NULL: out of memory (or not UTF-8). */
static json_t *counted(const nmt_strbuf *s, size_t *bytes) {
  json_t *v = json_stringn(s->s ? s->s : "", s->len);
  if (v) *bytes += json_bytes(s->s, s->len);
  return v;
}

/* The alignment of job j's best hypothesis as asked: nmt-decode --alignment
 * hard or soft's text, or --attention-svg's picture (its size bounded by the
 * grid's cells, --max-alignment-cells). */
static json_t *alignment(const serve_batcher *b, job *j) {
  nmt_strbuf s = {0};
  const nmt_hyp *h = &j->out.hyps[0];
  serve_align k = j->r->alignment;
  int st = nmt_strbuf_reserve(&s, 0);
  if (!st && k == SERVE_ALIGN_SVG)
    st = nmt_attention_svg_ids(&s, j->toks.s, j->toks.len, j->n, b->first->tgt, h->ids, h->n, j->att);
  else if (!st)
    st = nmt_attention_text(&s, j->att, h->n, j->n, k == SERVE_ALIGN_SOFT ? NMT_ALIGN_SOFT : NMT_ALIGN_HARD, 0);
  json_t *v = st ? NULL : counted(&s, &j->bytes);
  free(s.s);
  return v;
}

/* Job j's answer into the cache (outside the lock: the cache has its own). */
static void keep(serve_batcher *b, const job *j) {
  size_t n;
  char *key = cache_key(j->r, j->i, &n);
  serve_cached c = {j->text, j->nbest, j->align, j->bytes, j->n, j->out.n ? j->out.hyps[0].n : 0};
  if (key) serve_cache_put(b->cache, key, n, &c);
  free(key);
}

/* Job j's answer, built outside the lock (its request's options only are read):
 * its best translation, its n-best list when asked, its alignment, and their JSON bytes. */
static int build(serve_batcher *b, lane *l, job *j, nmt_strbuf *text) {
  const serve_req *r = j->r;
  int shown = r->n_best ? j->out.n : j->out.n ? 1 : 0;
  if (r->n_best && !(j->nbest = json_array())) return nmt_fail(NMT_EIO, "out of memory");
  for (int h = 0; h < shown; h++) {
    text->len = 0;
    size_t bytes = 0;
    const nmt_hyp *hyp = &j->out.hyps[h];
    const char *p = r->prefix && j->pre_n ? r->prefix[j->i] : NULL;
    int st = p ? nmt_prefix_target(l->text, b->first->tgt, hyp->ids, hyp->n, j->pre_n, p, strlen(p), text)
               : nmt_text_target(l->text, hyp->ids, hyp->n, text);
    json_t *s = st ? NULL : counted(text, &bytes);
    if (!s) return st ? st : nmt_fail(NMT_EIO, "out of memory");
    if (!h) j->text = json_incref(s), j->bytes += bytes;
    if (r->n_best && json_array_append_new(j->nbest, json_pack("{s:O, s:f}", "translation", s, "score",
                                                                (double)j->out.hyps[h].score)))
      st = nmt_fail(NMT_EIO, "out of memory");
    if (r->n_best) j->bytes += NBEST_ENTRY_BYTES + bytes;
    json_decref(s);
    if (st) return st;
  }
  if (r->alignment && j->out.n && !(j->align = alignment(b, j))) return nmt_fail(NMT_EIO, "out of memory");
  if (b->cache && !r->sampling.kind) keep(b, j);
  return NMT_OK;
}

/* Build and deliver the round's answers one sentence at a time, so that a lane
 * holds one answer at most outside its request; st: the round failed. Called
 * and returns with the lock held, released while building. */
static void answer_round(serve_batcher *b, lane *l, int st, nmt_strbuf *text) {
  for (int k = 0; k < l->njobs; k++) {
    job *j = &l->jobs[k];
    int js = st;
    if (!js && !j->r->status) {
      pthread_mutex_unlock(&b->mu);
      if ((js = build(b, l, j, text))) nmt_warn(PROG, "%s", nmt_errmsg());
      pthread_mutex_lock(&b->mu);
    }
    deliver(b, j, js);
  }
  l->njobs = 0;
}

static void lane_main(void *ctx, int part, int parts) {
  serve_batcher *b = ctx;
  lane *l = &b->l[part];
  nmt_strbuf text = {0};
  /* --decode-nice: a lane yields to the HTTP threads, so a full queue's 503s keep coming
   * within milliseconds (256 clients, --max-queue 64: p99 61-71 -> 38 ms at nice 5, the
   * throughput unchanged; bench/README.md). Linux's nice is per thread. */
  id_t tid = (id_t)syscall(SYS_gettid);
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, tid);
  if (!errno) setpriority(PRIO_PROCESS, tid, nice + (int)b->a->decode_nice > 19 ? 19 : nice + (int)b->a->decode_nice);
  pthread_mutex_lock(&b->mu);
  while (wait_for_round(b, l)) {
    take_round(b, l);
    serve_metrics_batch(b->m, l->njobs);
    b->busy++;
    /* BLAS threads are one setting for the process: every thread for a lane
     * alone (a lone sentence, or a lane whose neighbours wait for their
     * clients), one each as soon as two decode (a wide lane goes on narrower) */
    bool wide = b->busy == 1 && !b->qn;
    openblas_set_num_threads(wide ? b->lanes : 1);
    pthread_mutex_unlock(&b->mu);
    nn_parallel_nested(!wide);
    double t0 = nmt_seconds();
    int st = encode_round(b, l);
    pthread_mutex_lock(&b->mu);
    if (!st) prune_round(b, l);
    pthread_mutex_unlock(&b->mu);
    if (!st) st = decode_round(b, l);
    if (st) nmt_warn(PROG, "%s", nmt_errmsg());
    l->round_s = nmt_seconds() - t0;
    pthread_mutex_lock(&b->mu);
    answer_round(b, l, st, &text);
    b->busy--;
  }
  pthread_cond_broadcast(&b->more); /* the other lanes see the end too */
  pthread_mutex_unlock(&b->mu);
  free(text.s);
}

static void batcher_free(serve_batcher *b) {
  for (int i = 0; i < NMT_MAX_DECODE_THREADS; i++) {
    lane *l = &b->l[i];
    nmt_dec_free(&l->dec);
    nmt_text_free(l->text);
    free(l->sents), free(l->out), free(l->asrc), free(l->alen), free(l->tgt), free(l->tgt_n), free(l->att);
    for (int k = 0; l->jobs && k < b->a->mini_batch; k++) {
      job *j = &l->jobs[k];
      free(j->ids), free(j->pre), free(j->cons), free(j->att), free(j->toks.s);
    }
    free(l->jobs), free(l->cand);
  }
  free(b->reqs), free(b->joins);
  pthread_mutex_destroy(&b->mu), pthread_cond_destroy(&b->more);
  free(b);
}

/* Lane l's buffers, each for one mini-batch of B sentences. */
static int lane_alloc(lane *l, size_t B) {
  l->jobs = calloc(B, sizeof *l->jobs), l->sents = malloc(sizeof *l->sents * B);
  l->out = malloc(sizeof *l->out * B), l->cand = malloc(sizeof *l->cand * 64), l->cand_cap = 64;
  l->asrc = malloc(sizeof *l->asrc * B), l->alen = malloc(sizeof *l->alen * B), l->tgt = malloc(sizeof *l->tgt * B);
  l->tgt_n = malloc(sizeof *l->tgt_n * B), l->att = malloc(sizeof *l->att * B);
  bool ok = l->jobs && l->sents && l->out && l->cand && l->asrc && l->alen && l->tgt && l->tgt_n && l->att;
  return ok ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
}

int serve_batcher_start(serve_batcher **bp, const nmt_ensemble *e, const serve_args *a, serve_metrics *m,
                        serve_cache *cache) {
  serve_batcher *b = calloc(1, sizeof *b);
  if (!b) return nmt_fail(NMT_EIO, "out of memory");
  *b = (serve_batcher){.e = &e->dec, .first = &e->model[0], .a = a, .m = m, .cache = cache, .lanes = (int)a->threads};
  pthread_condattr_t ca; /* its waits' deadlines are nmt_seconds()'s */
  pthread_condattr_init(&ca), pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_mutex_init(&b->mu, NULL), pthread_cond_init(&b->more, &ca);
  pthread_condattr_destroy(&ca);
  int st = nmt_terms_joins(b->first->tgt, &b->joins);
  for (int i = 0; !st && i < b->lanes; i++) {
    lane *l = &b->l[i];
    st = nmt_text_new(&l->text, b->first, a->models.v[0], !a->bpe_input, !a->no_postprocess);
    if (!st) nmt_text_set_cache(l->text, (size_t)a->bpe_cache_bytes / (size_t)b->lanes); /* one budget for all lanes */
    l->e = b->e;
    if (!st) st = lane_alloc(l, (size_t)a->mini_batch);
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

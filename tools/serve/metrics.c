/* nmt-serve's metrics (metrics.h): counters and histograms under one lock, written out
 * in Prometheus's text format. A histogram keeps a count per bucket and writes them
 * cumulated, as the format wants ("le": less than or equal), with +Inf, _sum and _count. */
#include "base/err.h"
#include "base/strbuf.h"
#include "metrics.h"
#include <pthread.h>
#include <stdlib.h>

enum { MAX_BUCKETS = 16, CODES = 600 };

typedef struct {
  const char *name, *help;
  const double *le; /* (n) upper bounds, increasing */
  int n;
  unsigned long long in[MAX_BUCKETS + 1]; /* observations in (le[i-1], le[i]]; in[n]: above le[n-1] */
  unsigned long long count;
  double sum;
} histogram;

struct serve_metrics {
  pthread_mutex_t mu;
  unsigned long long requests[CODES]; /* by status code */
  unsigned long long sentences, src_tokens, tgt_tokens;
  histogram latency, queue_wait, batch;
};

/* The buckets (docs/serve.md): seconds from 5 ms to 2 min; queue waits from 1 ms; the
 * sentences of a round, powers of two up to 1024 (--mini-batch is 64 unless told). */
static const double LATENCY_LE[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120};
static const double WAIT_LE[] = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
static const double BATCH_LE[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
#define BUCKETS(a) a, (int)(sizeof a / sizeof *a)

int serve_metrics_new(serve_metrics **mp) {
  serve_metrics *m = calloc(1, sizeof *m);
  if (!(*mp = m)) return nmt_fail(NMT_EIO, "out of memory");
  pthread_mutex_init(&m->mu, NULL);
  m->latency = (histogram){"nmt_serve_request_duration_seconds",
                           "POST /translate requests: seconds from their headers to their answer",
                           BUCKETS(LATENCY_LE)};
  m->queue_wait = (histogram){"nmt_serve_queue_wait_seconds",
                              "Requests: seconds from being queued to a lane taking their first sentence",
                              BUCKETS(WAIT_LE)};
  m->batch = (histogram){"nmt_serve_batch_sentences", "Sentences a decoding lane took into one round",
                         BUCKETS(BATCH_LE)};
  return NMT_OK;
}

void serve_metrics_free(serve_metrics *m) {
  if (!m) return;
  pthread_mutex_destroy(&m->mu);
  free(m);
}

static void observe(histogram *h, double v) {
  int i = 0;
  while (i < h->n && v > h->le[i]) i++;
  h->in[i]++, h->count++, h->sum += v;
}

void serve_metrics_request(serve_metrics *m, unsigned status, bool translate, double seconds) {
  pthread_mutex_lock(&m->mu);
  if (status < CODES) m->requests[status]++;
  if (translate) observe(&m->latency, seconds);
  pthread_mutex_unlock(&m->mu);
}

void serve_metrics_sentence(serve_metrics *m, int src_tokens, int tgt_tokens) {
  pthread_mutex_lock(&m->mu);
  m->sentences++, m->src_tokens += (unsigned)src_tokens, m->tgt_tokens += (unsigned)tgt_tokens;
  pthread_mutex_unlock(&m->mu);
}

void serve_metrics_queue_wait(serve_metrics *m, double seconds) {
  pthread_mutex_lock(&m->mu);
  observe(&m->queue_wait, seconds);
  pthread_mutex_unlock(&m->mu);
}

void serve_metrics_batch(serve_metrics *m, int sentences) {
  pthread_mutex_lock(&m->mu);
  observe(&m->batch, sentences);
  pthread_mutex_unlock(&m->mu);
}

/* A metric's # HELP and # TYPE lines. */
static int head(nmt_strbuf *s, const char *name, const char *type, const char *help) {
  return nmt_strbuf_addf(s, "# HELP %s %s.\n# TYPE %s %s\n", name, help, name, type);
}

static int one(nmt_strbuf *s, const char *name, const char *type, const char *help, unsigned long long v) {
  return head(s, name, type, help) || nmt_strbuf_addf(s, "%s %llu\n", name, v);
}

static int write_histogram(nmt_strbuf *s, const histogram *h) {
  int st = head(s, h->name, "histogram", h->help);
  unsigned long long below = 0;
  for (int i = 0; !st && i < h->n; i++)
    below += h->in[i], st = nmt_strbuf_addf(s, "%s_bucket{le=\"%g\"} %llu\n", h->name, h->le[i], below);
  if (!st) st = nmt_strbuf_addf(s, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.17g\n%s_count %llu\n", h->name, h->count,
                                h->name, h->sum, h->name, h->count);
  return st;
}

/* The requests by status code, the codes seen so far. */
static int write_requests(nmt_strbuf *s, const serve_metrics *m) {
  static const char name[] = "nmt_serve_requests_total";
  int st = head(s, name, "counter", "HTTP requests answered, by status code");
  for (int c = 100; !st && c < CODES; c++)
    if (m->requests[c]) st = nmt_strbuf_addf(s, "%s{code=\"%d\"} %llu\n", name, c, m->requests[c]);
  return st;
}

/* --cache-bytes' counters and gauges. */
static int write_cache(nmt_strbuf *s, const serve_gauges *g) {
  int st = one(s, "nmt_serve_cache_hits_total", "counter", "Sentences answered from the cache", g->cache_hits);
  if (!st) st = one(s, "nmt_serve_cache_misses_total", "counter", "Sentences looked up in the cache and not found",
                    g->cache_misses);
  if (!st) st = one(s, "nmt_serve_cache_bytes", "gauge", "Bytes the cache holds (--cache-bytes)", g->cache_bytes);
  if (!st) st = one(s, "nmt_serve_cache_entries", "gauge", "Answers the cache holds", g->cache_entries);
  return st;
}

char *serve_metrics_text(serve_metrics *m, const serve_gauges *g) {
  nmt_strbuf s = {0};
  pthread_mutex_lock(&m->mu);
  int st = write_requests(&s, m);
  if (!st) st = one(&s, "nmt_serve_sentences_total", "counter", "Sentences translated", m->sentences);
  if (!st) st = one(&s, "nmt_serve_source_tokens_total", "counter", "Source subwords of the sentences translated",
                    m->src_tokens);
  if (!st) st = one(&s, "nmt_serve_target_tokens_total", "counter",
                    "Target subwords of their translations (the best hypotheses)", m->tgt_tokens);
  if (!st) st = write_histogram(&s, &m->latency);
  if (!st) st = write_histogram(&s, &m->queue_wait);
  if (!st) st = write_histogram(&s, &m->batch);
  pthread_mutex_unlock(&m->mu);
  if (!st) st = one(&s, "nmt_serve_queued_sentences", "gauge", "Sentences waiting for a decoding lane",
                    (unsigned long long)g->queued);
  if (!st) st = one(&s, "nmt_serve_busy_lanes", "gauge", "Decoding lanes decoding now", (unsigned long long)g->busy);
  if (!st) st = one(&s, "nmt_serve_lanes", "gauge", "Decoding lanes (--threads)", (unsigned long long)g->lanes);
  if (!st && g->cache) st = write_cache(&s, g);
  if (st) free(s.s), s.s = NULL;
  return s.s;
}

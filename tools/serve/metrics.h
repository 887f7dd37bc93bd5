/* nmt-serve's counters and histograms, and GET /metrics' answer in Prometheus's text
 * exposition format (version 0.0.4). Any thread may call any function: one lock guards
 * them all, so that a scrape sees a consistent set (a histogram's buckets, count and sum
 * agree; a request's sentences are counted before its answer is sent). The names, labels
 * and buckets are listed in docs/serve.md ("Metrics"). */
#ifndef NMT_TOOLS_SERVE_METRICS_H
#define NMT_TOOLS_SERVE_METRICS_H
#include <stdbool.h>

typedef struct serve_metrics serve_metrics;

/* NMT_OK, or an error (message set). */
int serve_metrics_new(serve_metrics **m);
void serve_metrics_free(serve_metrics *m);

/* An HTTP request answered with status (100 to 599; a websocket's 101 too); translate:
 * a POST /translate, whose seconds from its headers to its answer go into the latency
 * histogram. */
void serve_metrics_request(serve_metrics *m, unsigned status, bool translate, double seconds);
/* A sentence translated (its answer delivered to its request): its source and target
 * subwords (without </s>). */
void serve_metrics_sentence(serve_metrics *m, int src_tokens, int tgt_tokens);
/* A request's wait in the queue, from being queued to a lane taking its first sentence. */
void serve_metrics_queue_wait(serve_metrics *m, double seconds);
/* The sentences a decoding lane took into one round. */
void serve_metrics_batch(serve_metrics *m, int sentences);

/* The gauges, read by the caller at the time of the scrape. */
typedef struct {
  int queued; /* sentences waiting for a lane */
  int busy;   /* lanes decoding */
  int lanes;  /* --threads */
  bool cache; /* --cache-bytes: its counters below */
  unsigned long long cache_hits, cache_misses, cache_bytes, cache_entries;
} serve_gauges;

/* The exposition text (malloc'ed; NULL when out of memory). */
char *serve_metrics_text(serve_metrics *m, const serve_gauges *g);

#endif

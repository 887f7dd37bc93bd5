/* nmt-serve's pieces: options and start-up (main.c), the HTTP side (http.c),
 * the request's JSON (request.c), the page for a browser (page.c), Marian's websocket
 * protocol (websocket.c), the batcher whose decoding
 * lanes translate the queued sentences of all requests together (batcher.c), the
 * metrics of GET /metrics (metrics.c), the access log (access_log.c), API keys (api_keys.c),
 * form bodies (form.c), LibreTranslate's API (libretranslate.c), the translation cache
 * (cache.c) and the OpenAPI document (openapi.c). */
#ifndef NMT_TOOLS_SERVE_SERVE_TOOL_H
#define NMT_TOOLS_SERVE_SERVE_TOOL_H
#include "access_log.h"
#include "api_keys.h"
#include "cache.h"
#include "base/cli.h"
#include "decode/ensemble.h"
#include "metrics.h"
#include "decode/sample.h"
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "decode/lexical.h"

#define PROG "nmt-serve"
/* A sampling request's seed when it gives none: nmt-decode --seed's default (tools/decode/options.def). */
#define SERVE_DEFAULT_SEED 1

/* The options, as given or their defaults (options.def). */
typedef struct {
#define OPTION NMT_CLI_FIELD
#include "options.def"
#undef OPTION
  nmt_shortlist_spec shortlist_spec; /* from shortlist */
  nmt_lex lex;                       /* its table, when it names one */
} serve_args;

/* A request's "alignment": none, false; hard, true or "hard" ("s-t ..."); soft
 * (nmt-decode --alignment soft's weights); svg, the attention heatmap of
 * nmt-decode --attention-svg, an SVG document. */
typedef enum { SERVE_ALIGN_NONE, SERVE_ALIGN_HARD, SERVE_ALIGN_SOFT, SERVE_ALIGN_SVG } serve_align;

/* One POST /translate: its sentences and, once translated, their answers. */
typedef struct {
  json_t *json;       /* the parsed body; owns the sentences */
  int n;              /* sentences */
  const char **src;   /* (n) */
  int *words;         /* (n) space-separated words of each */
  bool list;          /* "text" was a list: the answer is one too */
  const char **prefix; /* (n) "prefix": each sentence's target prefix (NULL: none) */
  char **cons;         /* (n) "constraints": each sentence's phrases joined by tabs (NULL: none) */
  int beam;           /* with sampling: the samples drawn */
  nmt_sampling sampling; /* "sampling", "temperature" (kind NMT_SAMPLE_NONE: beam search) */
  uint64_t seed;      /* "seed": sentence i's samples are drawn from (seed, i) */
  bool seed_given;
  bool n_best;
  serve_align alignment;
  /* Set by the batcher, each (n) JSON array: */
  json_t *out, *nbest, *align; /* best translations; [{translation, score}] lists; alignments */
  int left;           /* sentences not yet answered */
  int status;         /* 0, or the HTTP status of a failure (err says why) */
  char err[256];
  pthread_cond_t done;
  /* Set by the caller before serve_translate (zero: none). gone is polled (every 100 ms, from
   * the thread in serve_translate; it must not block) while the request waits, and returns
   * true once its client has gone: the request ends with status 499, its queued sentences
   * leave the queue, those in a lane's round are dropped when it ends, and serve_translate
   * returns once no lane holds any. deadline is a CLOCK_MONOTONIC time in seconds (a
   * request's "timeout_ms", --request-timeout): past it the same happens, with status 504. */
  bool (*gone)(void *ctx);
  void *gone_ctx;
  double deadline;
  /* The batcher's, while serve_translate runs (under its lock): */
  int *order;         /* (n) its sentences by word count: the order the lanes take them in */
  int taken;          /* order[0..taken) have gone to lanes, left the queue, or came from the cache */
  int cached;         /* order[0..cached): answered from the cache */
  int in_lanes;       /* its sentences in lanes' rounds now */
  size_t bytes;       /* its answer's JSON bytes so far (--max-answer-bytes) */
  double queued_at;   /* when it was queued (nmt_seconds; the queue-wait histogram) */
} serve_req;

/* The body's JSON checked against the options (a = the server's limits):
 * 0, or the HTTP status of the problem with a one-line message in r->err.
 * serve_req_free releases it either way. */
int serve_req_parse(serve_req *r, const char *body, size_t len, const serve_args *a, bool has_attention);
/* serve_req_parse in two steps: the body's JSON object into r->json (0, or a status and
 * r->err), then r->json (which the caller may have replaced) checked. */
int serve_req_load(serve_req *r, const char *body, size_t len, const serve_args *a);
int serve_req_take(serve_req *r, const serve_args *a, bool has_attention);
/* The body as HTML form fields (form.c; application/x-www-form-urlencoded), each a string,
 * into r->json: 0; -1 when it does not look like a form (r unchanged); a status and r->err
 * for a form with a bad field (an escape, a field twice, not UTF-8). */
int serve_req_form(serve_req *r, const char *body, size_t len);
/* The request's failure: status and a one-line message (a client's bytes in it made
 * valid UTF-8) in r->err; returns status. */
int serve_req_bad(serve_req *r, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* One field of the search (request_search.c): "beam_size", "sampling", "temperature",
 * "seed": 0, the status of a bad value, or -1 when key is none of them. */
int serve_req_search_field(serve_req *r, const char *key, json_t *v, const serve_args *a);
/* After every field: 0, or 400 for a sampling field without "sampling". */
int serve_req_search_check(serve_req *r);
/* "prefix" (v, NULL when absent) in the shape of "text": 0 or a status. */
int serve_req_prefix(serve_req *r, json_t *v);
/* "constraints" (v, NULL when absent): a list of phrases per sentence (a list of such lists
 * for a list "text"), as nmt-decode --constraints' lines: 0 or a status. */
int serve_req_constraints(serve_req *r, json_t *v);
/* Whether two requests' sentences may share a round: one search for all. */
bool serve_req_same_search(const serve_req *a, const serve_req *b);
/* The answer: {"translation": ...} in the shape of the request. */
char *serve_req_answer(const serve_req *r);
void serve_req_free(serve_req *r);

/* LibreTranslate's API (libretranslate.c). A request of r->json with "q": its fields
 * checked against the server's languages (a->src_lang, a->tgt_lang; "source" may be
 * "auto", *auto_source then) and r->json made {"text": q}: 0, or 400 and r->err. */
int serve_lt_request(serve_req *r, const serve_args *a, bool *auto_source);
/* The answer {"translatedText": ...} in the shape of "q" (with "detectedLanguage" for "auto"). */
char *serve_lt_answer(const serve_req *r, bool auto_source, const char *src_lang);
/* GET /languages: [{"code": SRC, "name": ..., "targets": [TGT]}], [] without languages. */
char *serve_lt_languages(const serve_args *a);

typedef struct serve_batcher serve_batcher;

/* Start the decoding threads over the models e (which, and m, must outlive them); they
 * count into m, and answer from cache and keep their answers there (NULL: no cache).
 * NMT_OK or an error (message set). */
int serve_batcher_start(serve_batcher **b, const nmt_ensemble *e, const serve_args *a, serve_metrics *m,
                        serve_cache *cache);
/* Queue r's sentences and wait until all are answered (r->status says how). */
void serve_translate(serve_batcher *b, serve_req *r);
/* Sentences queued and not yet taken. */
int serve_batcher_queued(serve_batcher *b);
/* The sentences queued, the lanes decoding and the lanes, at one moment; the cache's counters. */
void serve_batcher_gauges(serve_batcher *b, serve_gauges *g);
/* End every request queued or decoding now with status and message why (a drain cut
 * short by its limit): their queued sentences leave the queue, and each serve_translate
 * returns once the lanes' rounds holding its sentences end (one mini-batch at most).
 * Later requests end with the same at once. */
void serve_batcher_cancel_all(serve_batcher *b, int status, const char *why);
/* Finish the queued sentences, stop the threads, free b. */
void serve_batcher_stop(serve_batcher *b);

/* Marian's websocket protocol (websocket.c). The Sec-WebSocket-Accept of a
 * handshake's key into out; false for a malformed key. */
bool serve_ws_accept(const char *key, char out[29]);
/* Serve the upgraded connection fd until the client closes it or *stopping
 * (extra: bytes already read from it). */
void serve_ws_run(serve_batcher *b, const serve_args *a, bool attention, const atomic_bool *stopping, int fd,
                  const char *extra, size_t extra_n);

/* GET /'s page (page.c). */
extern const char serve_page[];
/* GET /openapi.json's document (openapi.c). */
extern const char serve_openapi[];

/* The HTTP side: listen on a->host:a->port, answer until serve_http_stop; each request
 * counted into m and, unless log is NULL, written to the access log; translations need
 * one of keys' keys (NULL: none). */
typedef struct serve_http serve_http;
int serve_http_start(serve_http **h, serve_batcher *b, const nmt_ensemble *e, const serve_args *a, serve_metrics *m,
                     serve_access_log *log, serve_keys *keys, int *port);
/* Stop accepting, wait up to --drain-timeout for the requests in flight, answer
 * those still there 503, close. True when it had to. */
bool serve_http_stop(serve_http *h);

#endif

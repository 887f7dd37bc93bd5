/* What the files of the public API (include/nmt.h) share: the translator's
 * insides and the workers its calls borrow. The top layer of lib/: it may use
 * every layer below and nothing uses it but programs (docs/library.md). */
#ifndef NMT_API_API_H
#define NMT_API_API_H
#include <nmt.h>
#include "decode/ensemble.h"
#include "decode/stream.h"
#include "decode/text.h"
#include <pthread.h>

/* What one call decodes with: its own source/output text state and a decoder per
 * decoding thread. Kept by the translator between calls (idle list). */
typedef struct api_worker {
  struct api_worker *next;
  nmt_text *text;
  nmt_dec dec[NMT_MAX_DECODE_THREADS];
} api_worker;

struct nmt_translator {
  nmt_ensemble e;       /* read-only once loaded: shared by every call */
  nmt_translator_options o;
  char *path;           /* the first model's, for messages (nmt_text keeps it) */
  pthread_mutex_t lock; /* guards idle */
  api_worker *idle;
};

/* A worker of t: an idle one, or a new one (NMT_OK or an error). */
int api_worker_take(nmt_translator *t, api_worker **w);
/* Back to t's idle list. */
void api_worker_give(nmt_translator *t, api_worker *w);
void api_worker_free(api_worker *w);

/* The source ids of line (subword tokens or raw text, as the options say): *ids grown as
 * nmt_vocab_encode grows it, *n set, cut to max_length. `what` and `i` name the line in
 * messages. */
int api_source_ids(nmt_translator *t, api_worker *w, const char *line, const char *what, int i, int **ids, int *n,
                   int *cap);

/* The status of an internal one (base/err.h's codes are the same numbers). */
nmt_status api_status(int st);

#endif

/* What the files of the public API (include/nmt.h) share: the translator's
 * insides and the workers its calls borrow. The top layer of lib/: it may use
 * every layer below and nothing uses it but programs (docs/api.md). */
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
  nmt_translator_options o; /* its alignment and device NULL: the caller's strings are not kept */
  nmt_align_kind align; /* o.alignment's, or NMT_ALIGN_NONE */
  float align_threshold;
  bool on_gpu;          /* weights on the process's GPU: calls take turns (api_device_turn) */
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

/* The status of an internal one (base/err.h's codes are the same numbers; API_EDEVICE is
 * NMT_STATUS_DEVICE, which only the API has). */
enum { API_EDEVICE = NMT_STATUS_DEVICE };
nmt_status api_status(int st);

/* The backend of the option device (NULL: the CPU): the CPU's, or the process's GPU opened
 * (or shared, counted) for one more translator. NMT_EUSAGE for a bad spec, API_EDEVICE
 * when the GPU cannot be used (no CUDA backend in the library, no GPU). */
int api_device_open(const char *spec, const struct nn_backend **be);
/* One GPU translator less: the last closes the device. */
void api_device_close(void);
/* Take (true) or give back the GPU for one call: the backend's one stream is not shared. */
void api_device_turn(bool take);

/* Alignments (nmt_translator_options.alignment). The attention of the hypotheses shown
 * (every one of out[i] with n_best, else the best) of the sentences in[0..n), decoded just
 * now on d: att[i] gets them one after another (nmt_attention's rows), the caller's to free. */
int api_align_batch(nmt_translator *t, nmt_dec *d, const nmt_sent *in, const nmt_nbest *out, int n, float **att);

#endif

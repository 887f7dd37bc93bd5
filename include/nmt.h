/* nmt's public C API (libnmt.so; pkg-config --cflags --libs nmt). docs/api.md.
 *
 * Errors: every call that can fail returns an nmt_status; on failure the one-line
 * message is nmt_last_error(), kept per calling thread until that thread's next
 * failing call. The library never exits, aborts or prints.
 *
 * Ownership: each *_new hands out a handle freed by its *_free (NULL is fine); a
 * string handed out as `char **out` is the caller's, freed with nmt_string_free;
 * a nmt_result's strings live as long as the result.
 *
 * Threads: a nmt_translator may be used by several caller threads at once (each
 * call decodes with its own decoder state; the weights are shared read-only; on a
 * GPU the process's calls take turns, since the backend has one stream); it
 * must not be freed while a call is running. A nmt_moses and a nmt_subword may be
 * used by several threads at once too. nmt_translator_new and the *_free calls
 * are not to race with calls on the same handle.
 *
 * Stability: this header is the whole API. Within a major version (the SONAME
 * libnmt.so.MAJOR) functions are only added, and nmt_translator_options only grows at its
 * end (its `size` says which fields the caller knows). */
#ifndef NMT_H
#define NMT_H
#include <stddef.h>

/* What libnmt.so exports (it is built with -fvisibility=hidden and an export list). */
#if defined(__GNUC__)
#define NMT_API __attribute__((visibility("default")))
#else
#define NMT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define NMT_VERSION_MAJOR 0
#define NMT_VERSION_MINOR 2
#define NMT_VERSION_PATCH 0

/* The library's version at run time, "MAJOR.MINOR.PATCH" (as nmt-train --version says). */
NMT_API const char *nmt_version(void);

typedef enum {
  NMT_STATUS_OK = 0,
  NMT_STATUS_USAGE = 1, /* a bad argument or option */
  NMT_STATUS_INPUT = 2, /* bad input data or a bad model file */
  NMT_STATUS_IO = 3,    /* I/O or resource failure (a missing file, out of memory) */
  NMT_STATUS_DEVICE = 4 /* the device asked for cannot be used: a library built without the CUDA
                           backend, no usable GPU, or no such GPU index */
} nmt_status;

/* The message of this thread's last failure ("" when none). */
NMT_API const char *nmt_last_error(void);
NMT_API void nmt_string_free(char *s);

/* ---- Translation and scoring (CPU, or a GPU where the library has the CUDA backend) ---- */

typedef struct {
  size_t size;        /* sizeof(nmt_translator_options): set by nmt_translator_options_init */
  int threads;        /* decoding threads within one call (1..8); default 1 */
  int beam_size;      /* 1 is greedy; default 5 */
  double normalize;   /* rank by score / length^normalize; default 0.6 */
  double max_length_factor; /* at most this × (source tokens + 1) target tokens; default 3 */
  int max_length;     /* longer sources are cut to this many subwords; default 1000 */
  int mini_batch;     /* sentences decoded together; default 64 */
  int n_best;         /* keep every hypothesis of the beam, not only the best; default 0 */
  int int8;           /* int8 weights (nmt-decode --gemm-type int8); default 0 */
  int shortlist;      /* score only the N most frequent target words (0: all); default 0 */
  int raw;            /* sources are raw text, tokenized and BPE'd (or split by SentencePiece) as
                         the model records (nmt-decode --raw); default 0: subword tokens */
  int postprocess;    /* join BPE and detokenize the output as the model records; default 1 */
  /* added later (a caller whose `size` ends before a field gets its default) */
  const char *alignment; /* "hard", "soft" or a threshold in (0, 1] (nmt-decode --alignment): each
                            hypothesis's alignment, nmt_result_alignment; NULL (default): none.
                            Read by nmt_translator_new only (the string need not outlive it) */
  const char *device;    /* "cpu", "cuda" (GPU 0) or "cuda:N" (nmt-decode --device); NULL
                            (default): "cpu". A GPU that cannot be used is NMT_STATUS_DEVICE, never
                            a silent fall-back to the CPU. Read by nmt_translator_new only */
} nmt_translator_options;

/* Fill o with the defaults above. */
NMT_API void nmt_translator_options_init(nmt_translator_options *o);

typedef struct nmt_translator nmt_translator;

/* Load n_models model files (1: one model; more: an ensemble with equal weights, as
 * nmt-decode -m a.bin b.bin). o may be NULL (the defaults). */
NMT_API nmt_status nmt_translator_new(nmt_translator **t, const char *const *models, int n_models, const nmt_translator_options *o);
NMT_API void nmt_translator_free(nmt_translator *t);

typedef struct nmt_result nmt_result;

/* Translate lines[0..n) (UTF-8, no '\n'; an empty line gives an empty translation),
 * the same text nmt-decode writes for them with the same options. *r is the caller's:
 * nmt_result_free. */
NMT_API nmt_status nmt_translator_translate(nmt_translator *t, const char *const *lines, int n, nmt_result **r);
/* How many sentences, how many hypotheses sentence i has (1, or up to beam_size with
 * n_best; 0 for an empty line), hypothesis k's text (best first) and its score
 * (the normalised log-probability). */
NMT_API int nmt_result_size(const nmt_result *r);
NMT_API int nmt_result_hypotheses(const nmt_result *r, int i);
NMT_API const char *nmt_result_text(const nmt_result *r, int i, int k);
NMT_API double nmt_result_score(const nmt_result *r, int i, int k);
/* Hypothesis k's alignment to its source subwords, the text nmt-decode --alignment writes
 * after " ||| " ("s-t" pairs for hard and thresholds; each target token's weights, comma
 * separated, for soft); "" for an empty line or without the option alignment; NULL out
 * of range. */
NMT_API const char *nmt_result_alignment(const nmt_result *r, int i, int k);
NMT_API void nmt_result_free(nmt_result *r);

/* The log-probability of each target tgt[i] (its </s> included) given source src[i],
 * as nmt-score prints it: scores[i] for i in [0, n). Both sides are subword tokens, or
 * with the option raw, text prepared as the model records. */
NMT_API nmt_status nmt_translator_score(nmt_translator *t, const char *const *src, const char *const *tgt, int n,
                                double *scores);

/* ---- Text tools ---- */

/* The Moses tokenizer of language lang (nmt-tokenize -l LANG; "en" when NULL). */
enum { NMT_MOSES_AGGRESSIVE = 1, /* -a: split hyphens */
       NMT_MOSES_ESCAPE = 2      /* escape XML characters (the default of nmt-tokenize) */ };
typedef struct nmt_moses nmt_moses;
NMT_API nmt_status nmt_moses_new(nmt_moses **m, const char *lang, int flags);
NMT_API nmt_status nmt_moses_tokenize(nmt_moses *m, const char *line, char **out);
NMT_API nmt_status nmt_moses_detokenize(nmt_moses *m, const char *line, char **out);
NMT_API void nmt_moses_free(nmt_moses *m);

/* BPE codes from nmt-bpe learn (subword-nmt's format): nmt-bpe apply -c CODES. */
typedef struct nmt_subword nmt_subword;
NMT_API nmt_status nmt_subword_new(nmt_subword **b, const char *codes_path);
NMT_API nmt_status nmt_subword_apply(nmt_subword *b, const char *line, char **out);
NMT_API void nmt_subword_free(nmt_subword *b);

#ifdef __cplusplus
}
#endif
#endif

/* Shared between lib/bpe_*.c only: the structures behind text/bpe.h. */
#ifndef NMT_BPE_INTERNAL_H
#define NMT_BPE_INTERNAL_H
#include "text/bpe.h"
#include "base/strmap.h"
#include "base/u64map.h"
#include <stddef.h>
#include <stdint.h>

struct nmt_wordfreq {
  nmt_strmap *words; /* id = order of first appearance */
  int64_t *counts;   /* by id */
  int32_t n, cap;
};

/* Word ids by descending count, ties by first appearance; free() it. */
int32_t *nmt_wordfreq_sorted(const nmt_wordfreq *wf);

/* Python's str.strip("\r\n "). */
void nmt_bpe_strip(const char **s, size_t *n);

#define NMT_BPE_EOW "</w>"
enum { NMT_BPE_EOW_LEN = 4 };

typedef struct nmt_bpe_gloss nmt_bpe_gloss;

struct nmt_bpe {
  nmt_strmap *syms;   /* every string in the codes, with and without "</w>" */
  nmt_u64map pairs;   /* (left << 32 | right) -> (rank << 32 | merged id) */
  int32_t *rev_left;  /* merged id -> the pair apply_bpe.py's reverse map keeps */
  int32_t *rev_right; /*   (-1 when the symbol is no merge result) */
  int version;        /* 1 for "0.1" (separate "</w>"), 2 for "0.2" */
  int32_t eow_id;     /* id of "</w>" (version 0.1), or -1 */
  char *sep;
  size_t seplen;
  nmt_strmap *vocab;  /* --vocabulary units at/above the threshold, or NULL */
  nmt_bpe_gloss *gloss;
  /* word -> segmented text (pieces joined by "SEP ") */
  nmt_strmap *cache;
  size_t *cache_off;  /* by cache id: [off, off+len) in cache_text */
  uint32_t *cache_len;
  size_t cache_cap;   /* of cache_off and cache_len */
  nmt_strbuf cache_text;
  double dropout;
  uint64_t rng[4];
  /* scratch */
  nmt_strbuf key;     /* a symbol string being looked up */
  struct nmt_bpe_sym *sym;
  size_t sym_cap;
};

struct nmt_bpe_sym {
  uint32_t start, end; /* bytes of the word; the last symbol also carries "</w>" */
  int32_t id;          /* -1 when the string is in no code */
};

/* Glossaries (text/bpe_gloss.c). */
int nmt_bpe_gloss_new(nmt_bpe_gloss **g, const char *const *res, int n);
void nmt_bpe_gloss_free(nmt_bpe_gloss *g);
/* Does the whole word match one of the glossaries? */
bool nmt_bpe_gloss_whole(nmt_bpe_gloss *g, const char *w, size_t n);
/* Split a word around glossary matches as apply_bpe.py's _isolate_glossaries:
 * calls emit(ctx, s, n) for each segment in order. */
int nmt_bpe_gloss_isolate(nmt_bpe_gloss *g, const char *w, size_t n,
                          int (*emit)(void *ctx, const char *s, size_t n), void *ctx);

#endif

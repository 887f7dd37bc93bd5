/* Shared between lib/bpe_*.c only: the structures behind text/bpe.h. */
#ifndef NMT_TEXT_BPE_INTERNAL_H
#define NMT_TEXT_BPE_INTERNAL_H
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

/* The word cache (text/bpe_cache.c): two generations of words and their
 * segmentations, tables and text within `budget` bytes in all. */
typedef struct {
  struct nmt_bpe_cache_slot *slots; /* mask + 1 of them, or NULL */
  size_t mask, n;                   /* n entries */
  char *text;                       /* each entry's key then value */
  size_t len, cap;
} nmt_bpe_cache_gen;

typedef struct {
  nmt_bpe_cache_gen gen[2]; /* [0] takes new words; [1] is the previous turn's */
  size_t budget;
} nmt_bpe_cache;

/* Empty the cache and give it `budget` bytes (0: cache nothing). */
void nmt_bpe_cache_reset(nmt_bpe_cache *c, size_t budget);
void nmt_bpe_cache_free(nmt_bpe_cache *c);
/* w's segmentation (h = nmt_hash(w, n)): 0 found in the current generation,
 * 1 in the previous (put it again to keep it), -1 not cached. *v stays valid
 * until the next put. */
int nmt_bpe_cache_get(const nmt_bpe_cache *c, const char *w, size_t n, uint64_t h, const char **v, size_t *vlen);
/* Cache w (not in the current generation) as v, unless w is longer than
 * NMT_BPE_CACHE_WORD_MAX or the entry cannot fit in half the budget. */
void nmt_bpe_cache_put(nmt_bpe_cache *c, const char *w, size_t n, uint64_t h, const char *v, size_t vlen);
size_t nmt_bpe_cache_bytes(const nmt_bpe_cache *c);

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
  nmt_bpe_cache cache; /* word -> segmented text (pieces joined by "SEP ") */
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

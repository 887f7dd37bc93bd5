/* Exact duplicate detection for sentence pairs: a set of 16-byte hashes
 * (open addressing), so memory grows with unique pairs, not with their text. */
#ifndef NMT_TEXT_CLEAN_DEDUPE_H
#define NMT_TEXT_CLEAN_DEDUPE_H
#include <stddef.h>
#include <stdint.h>

typedef struct nmt_dedupe nmt_dedupe;

int nmt_dedupe_new(nmt_dedupe **d);
/* Record the pair (a, b). Returns 1 if it was new, 0 if seen before, -1 when
 * out of memory (message set). */
int nmt_dedupe_add(nmt_dedupe *d, const char *a, size_t na, const char *b, size_t nb);
size_t nmt_dedupe_count(const nmt_dedupe *d);
void nmt_dedupe_free(nmt_dedupe *d);

/* The 128-bit pair hash; (a, b) and (b, a) differ, as do ("ab", "") and ("a", "b"). */
void nmt_pair_hash(const char *a, size_t na, const char *b, size_t nb, uint64_t out[2]);

#endif

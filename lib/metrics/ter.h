/* TER as sacreBLEU 2.6.0 computes it: the tercom tokenizer (case-insensitive by
 * default), greedy shifts chosen like Tercom (at most 10 words, 50 positions,
 * 1000 candidates per sentence), a beam-limited edit distance, the best
 * reference's edits over the average reference length. */
#ifndef NMT_METRICS_TER_H
#define NMT_METRICS_TER_H
#include <stddef.h>
#include "metrics/sacre_tok.h"

enum { NMT_TER_NSTATS = 2 }; /* [edits, average reference length] */
enum { NMT_TER_MAX_WORDS = 1 << 28 }; /* per line: keeps every edit count in an int32 */

typedef struct nmt_ter nmt_ter;

int nmt_ter_new(nmt_ter **t, const nmt_tercom_opts *o);
void nmt_ter_free(nmt_ter *t);
/* stats = [edits, average reference length]. NMT_EIO out of memory, NMT_EINPUT
 * for a line of more than NMT_TER_MAX_WORDS words. */
int nmt_ter_segment(nmt_ter *t, const char *hyp, size_t hyp_len, const char *const *refs,
                    const size_t *ref_lens, int nrefs, double *stats);
/* Score in [0, 100+]. f32: single-precision division, as sacreBLEU's bootstrap. */
double nmt_ter_score(const double *stats, int f32);
/* "case:lc|tok:tercom|norm:no|punct:yes|asian:no" */
void nmt_ter_signature(const nmt_ter *t, char *buf, size_t n);

/* *edits = shifts + edit distance turning hyp into ref (word ids, at most
 * NMT_TER_MAX_WORDS each), in O((nh + nr) x beam) memory. NMT_EIO out of memory. */
int nmt_ter_edits(const uint32_t *hyp, int nh, const uint32_t *ref, int nr, long *edits);

#endif

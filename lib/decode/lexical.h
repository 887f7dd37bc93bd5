/* A lexical shortlist (nmt-decode --shortlist FILE FIRST BEST [PRUNE], Marian's): a
 * mini-batch scores only the FIRST most frequent target words and, for every word of its
 * sources, the BEST target words that word most likely translates to. The table is
 * Marian's text form, one "TARGET SOURCE PROBABILITY" line per pair of vocabulary items
 * (nmt-lex writes it from a parallel corpus and its alignments). */
#ifndef NMT_DECODE_LEXICAL_H
#define NMT_DECODE_LEXICAL_H
#include "text/vocab.h"

typedef struct {
  int first, nsrc, ntgt; /* FIRST; the vocabularies' sizes */
  int *start;            /* (nsrc + 1): source id s's targets are tgt[start[s] .. start[s+1]) */
  int *tgt;              /* most likely first (ties: the lower id) */
} nmt_lex;

/* Read a table (zstd allowed) against the model's vocabularies: per source word its BEST
 * most likely targets whose probability is at least prune. Words either vocabulary lacks,
 * and Marian's NULL, are skipped. NMT_EINPUT "PATH:LINE: ..." for a line of another shape
 * or a probability that is not a finite number >= 0; NMT_EUSAGE for first or best < 0. */
int nmt_lex_load(nmt_lex *l, const char *path, const nmt_vocab *src, const nmt_vocab *tgt, int first,
                 int best, double prune);
void nmt_lex_free(nmt_lex *l);

/* --shortlist's values, as Marian spells them: N (digits alone: the N most frequent target
 * words, decode/net.h; 0: none) or FILE FIRST BEST [PRUNE] (a lexical table). */
typedef struct {
  int frequent;     /* N */
  const char *path; /* the table, NULL: none */
  int first, best;
  double prune;
} nmt_shortlist_spec;
/* v[0..n) into s. NMT_OK, or NMT_EUSAGE naming the value at fault. */
int nmt_shortlist_parse(const char *const *v, int n, nmt_shortlist_spec *s);
/* s's table for a model's vocabularies into l (nothing when s names none: l->ntgt 0). */
int nmt_shortlist_load(const nmt_shortlist_spec *s, const nmt_vocab *src, const nmt_vocab *tgt, nmt_lex *l);

/* A batch's target ids: mark[t] = 1 (mark has l->ntgt entries, zeroed first) for the
 * targets of each source id src[0..n) (one call per sentence), then nmt_lex_gather. */
void nmt_lex_mark(const nmt_lex *l, const int *src, int n, int *mark);
/* The marked ids, the specials and those below max(FIRST, at_least) (a beam of K needs
 * 2K candidates), ascending, into mark itself. Returns how many. */
int nmt_lex_gather(const nmt_lex *l, int at_least, int *mark);

#endif

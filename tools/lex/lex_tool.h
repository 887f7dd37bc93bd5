/* nmt-lex: a lexical table (Marian's lex.s2t, what nmt-decode --shortlist FILE reads) from a
 * parallel corpus and its word alignments: p(t|s), the share of source word s's links
 * that go to target word t (extract-lex's estimate, as Marian's recipes make it). */
#ifndef NMT_TOOLS_LEX_LEX_TOOL_H
#define NMT_TOOLS_LEX_LEX_TOOL_H
#include "base/cli.h"
#include "base/strmap.h"
#include "base/u64map.h"
#include "io/io.h"
#include "text/vocab.h"

#define PROG "nmt-lex"

typedef struct {
#define OPTION NMT_CLI_FIELD
#include "options.def"
#undef OPTION
} lex_args;

/* Link counts: words interned on each side, count(s, t) and each source word's links
 * (an unaligned source word has one link, to nothing: extract-lex's NULL). */
typedef struct {
  nmt_strmap *src, *tgt;
  nmt_u64map pairs; /* (s << 32 | t) -> count */
  long *links;      /* per source word */
  size_t cap_links;
  nmt_tokens ts, tt; /* the pair being counted: its words and their ids */
  int32_t *si, *ti;
  size_t cap_s, cap_t;
} lex_counts;

int lex_counts_init(lex_counts *c);
void lex_counts_free(lex_counts *c);
/* Count one sentence pair's links: src and tgt are its lines, align the "i-j" pairs
 * (source i, target j, from 0; the text after the last " ||| " when there is one, as
 * nmt-score --alignment writes). name and lineno name the alignment line in messages:
 * NMT_EINPUT for a link that is not "i-j" or lies outside the pair. */
int lex_counts_add(lex_counts *c, char *src, char *tgt, char *align, const char *name, long lineno);
/* The table into w: "TARGET SOURCE PROBABILITY" lines, by source word (bytes), then most
 * likely first, then target word; pairs linked fewer than min_count times left out. */
int lex_counts_write(const lex_counts *c, nmt_writer *w, long min_count);

#endif

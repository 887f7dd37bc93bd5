/* nmt-lex: a lexical table from a parallel corpus and its alignments (lex_tool.h). */
#include "lex_tool.h"
#include "base/err.h"
#include "tool.h"
#include <stdlib.h>

#define SUMMARY \
  "Count the word alignments of a parallel corpus into a lexical table: one 'TARGET SOURCE\n" \
  "PROBABILITY' line per pair of words linked, p(t|s) the share of source word s's links that\n" \
  "go to t (an unaligned source word's link goes to nothing), as Marian's extract-lex writes\n" \
  "lex.s2t; nmt-decode --shortlist FILE FIRST BEST reads it. ALIGN has one line per pair of\n" \
  "'i-j' links (source word i, target word j, from 0), or nmt-score --alignment's lines (the\n" \
  "links after the last ' ||| '). Use the text the model reads (BPE'd). Exit 0 ok, 1 usage,\n" \
  "2 bad input, 3 I/O."

static int parse_args(lex_args *a, int argc, char **argv, nmt_strlist *pos) {
  const nmt_opt opts[] = {
#define OPTION(...) NMT_CLI_ROW(a, __VA_ARGS__)
#include "options.def"
#undef OPTION
      {0}};
  const nmt_cli cli = {PROG, "SRC TGT ALIGN [-o lex.s2t]", SUMMARY,
                       "nmt-score -m fr-en.bin --alignment train.bpe.fr train.bpe.en > train.align\n"
                       "  " PROG " train.bpe.fr train.bpe.en train.align -o lex.s2t\n"
                       "  nmt-decode -m fr-en.bin --shortlist lex.s2t 100 50 < test.bpe.fr",
                       opts, false};
  int st = nmt_cli_defaults(&cli);
  if (!st) st = nmt_cli_parse(&cli, argc, argv, pos);
  if (!st && pos->n != 3) st = nmt_fail(NMT_EUSAGE, "expected SRC TGT ALIGN, got %d file(s) (see --help)", pos->n);
  return st;
}

/* Every pair of the three files counted into c. */
static int count(lex_counts *c, nmt_reader *const r[3]) {
  char *line[3];
  size_t len;
  for (;;) {
    int got[3], st = NMT_OK;
    for (int i = 0; i < 3; i++) got[i] = nmt_reader_next(r[i], &line[i], &len);
    for (int i = 0; i < 3; i++)
      if (got[i] < 0) return nmt_errcode();
    if (!got[0] && !got[1] && !got[2]) return NMT_OK;
    for (int i = 0; i < 3; i++)
      if (!got[i])
        return nmt_fail(NMT_EINPUT, "%s ends after line %ld; %s has more lines", nmt_reader_name(r[i]), nmt_reader_lineno(r[i]),
                        nmt_reader_name(r[got[0] ? 0 : got[1] ? 1 : 2]));
    /* the lines stay valid until each reader's next call: the three are read first */
    if ((st = lex_counts_add(c, line[0], line[1], line[2], nmt_reader_name(r[2]), nmt_reader_lineno(r[2]))))
      return st;
  }
}

int main(int argc, char **argv) {
  tool_init(PROG);
  lex_args a;
  nmt_strlist pos = {0};
  int st = parse_args(&a, argc, argv, &pos);
  nmt_reader *r[3] = {0};
  nmt_writer *w = NULL;
  lex_counts c = {0};
  for (int i = 0; i < 3 && !st; i++) st = nmt_reader_open(&r[i], pos.v[i]);
  if (!st) st = lex_counts_init(&c);
  if (!st) st = count(&c, r);
  if (!st) st = nmt_writer_open(&w, a.output, 0);
  if (!st) st = lex_counts_write(&c, w, a.min_count);
  if (!st) st = nmt_writer_commit(w);
  for (int i = 0; i < 3; i++) nmt_reader_close(r[i]);
  lex_counts_free(&c);
  free(pos.v);
  if (st) nmt_die(PROG, st);
  return 0;
}

/* nmt-bpe apply (apply_bpe.py). */
#include "bpe.h"
#include "bpe_tool.h"
#include "cli.h"
#include "err.h"
#include <stdlib.h>
#include <string.h>

enum { FLUSH_AT = 1 << 16 };

typedef struct {
  nmt_bpe *bpe;
  nmt_writer *w;
  nmt_strbuf *out;
} apply_ctx;

static int apply_line(void *ctx, char *line, size_t len, const char *name, long lineno) {
  apply_ctx *a = ctx;
  int st = nmt_bpe_apply_line(a->bpe, line, len, a->out);
  if (st) return st;
  if (nmt_strbuf_addc(a->out, '\n')) return nmt_fail(NMT_EIO, "out of memory");
  if (a->out->len < FLUSH_AT) return NMT_OK;
  st = nmt_writer_write(a->w, a->out->s, a->out->len);
  a->out->len = 0;
  return st;
}

static int apply_file(nmt_bpe *bpe, const char *path, nmt_writer *w, nmt_strbuf *out) {
  apply_ctx a = {bpe, w, out};
  return nmt_each_utf8_line(path, apply_line, &a);
}

int cmd_apply(int argc, char **argv) {
  const char *codes = NULL, *out_path = "-", *vocab = NULL, *sep = "@@";
  long merges = -1, threshold = -1, seed = 0;
  double dropout = 0;
  bool zstd = false;
  nmt_strlist inputs = {0}, gloss = {0}, pos;
  const nmt_opt opts[] = {
      {"codes", 'c', NMT_OPT_STR, &codes, "CODES", "codes file from learn (required)"},
      {"input", 'i', NMT_OPT_LIST, &inputs, "FILE", "input files (also as arguments; stdin when none)"},
      {"output", 'o', NMT_OPT_STR, &out_path, "FILE", "output (stdout)"},
      {"merges", 'm', NMT_OPT_INT, &merges, "N", "use only the first N merges (all)"},
      {"separator", 's', NMT_OPT_STR, &sep, "STR", "appended to non-final units (@@)"},
      {"vocabulary", 0, NMT_OPT_STR, &vocab, "VOCAB", "undo merges that make units missing from VOCAB"},
      {"vocabulary-threshold", 0, NMT_OPT_INT, &threshold, "N",
       "units seen fewer than N times in VOCAB count as missing"},
      {"glossaries", 0, NMT_OPT_LIST, &gloss, "RE", "words matching these regexes are never split (takes every argument up to the next option)"},
      {"dropout", 0, NMT_OPT_DOUBLE, &dropout, "P", "skip each merge with probability P (BPE-dropout)"},
      {"seed", 0, NMT_OPT_INT, &seed, "S", "random seed for --dropout (0); not Python's generator"},
      {"zstd", 'z', NMT_OPT_FLAG, &zstd, NULL, "compress the output with zstd"},
      {0}};
  const nmt_cli cli = {PROG " apply", "-c CODES [options] [FILE...]",
                       "Segment text into subword units with BPE codes, as apply_bpe.py.",
                       PROG " apply -c codes --glossaries '[0-9]+' < test.tok.en > test.bpe.en", opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st && !codes) st = nmt_fail(NMT_EUSAGE, "-c CODES is required (see --help)");
  if (!st && (dropout < 0 || dropout > 1)) st = nmt_fail(NMT_EUSAGE, "--dropout must be in [0, 1]");
  if (st) nmt_die(PROG, st);
  for (int i = 0; i < pos.n; i++) {
    inputs.v = realloc(inputs.v, sizeof *inputs.v * (size_t)(inputs.n + 1));
    inputs.v[inputs.n++] = pos.v[i];
  }
  nmt_bpe_opts o = {sep, merges, vocab, threshold, gloss.v, gloss.n};
  nmt_bpe *bpe;
  if ((st = nmt_bpe_load(&bpe, codes, &o))) nmt_die(PROG, st);
  nmt_bpe_set_dropout(bpe, dropout, (uint64_t)seed);
  nmt_writer *w;
  if ((st = nmt_writer_open(&w, out_path, zstd ? NMT_W_ZSTD : 0))) nmt_die(PROG, st);
  nmt_strbuf out = {0};
  for (int i = 0; i < (inputs.n ? inputs.n : 1) && !st; i++)
    st = apply_file(bpe, inputs.n ? inputs.v[i] : "-", w, &out);
  if (!st) st = nmt_writer_write(w, out.s, out.len);
  if (!st) st = nmt_writer_commit(w);
  if (st) nmt_die(PROG, st);
  free(out.s);
  nmt_bpe_free(bpe);
  free(inputs.v);
  free(gloss.v);
  free(pos.v);
  return 0;
}

/* nmt-tokenize: Moses tokenizer.perl, detokenizer.perl, normalize-punctuation.perl
 * and lowercase.perl in one fast, multi-threaded tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chunks.h"
#include "base/cli.h"
#include "base/err.h"
#include "io/io.h"
#include "text/tok.h"
#include "tool.h"

static const char *PROG = "nmt-tokenize";

enum mode { TOKENIZE, DETOKENIZE, NORMALIZE_ONLY, NORMALIZE_TOKENIZE, LOWERCASE };

typedef struct {
  enum mode mode;
  tok_config cfg;
} job;

static bool one_line(void *ctx, chunk_worker *w, const char *line, size_t n, nmt_strbuf *out) {
  job *j = ctx;
  switch (j->mode) {
  case TOKENIZE: return tok_tokenize(&j->cfg, &w->scratch, line, n, out);
  case DETOKENIZE: return tok_detokenize(&j->cfg, &w->scratch, line, n, out);
  case NORMALIZE_ONLY: return tok_normalize(&j->cfg, &w->scratch, line, n, out);
  case LOWERCASE: return tok_lowercase(&w->scratch, line, n, out);
  case NORMALIZE_TOKENIZE:
    w->tmp.len = 0;
    return tok_normalize(&j->cfg, &w->scratch, line, n, &w->tmp) &&
           tok_tokenize(&j->cfg, &w->scratch, w->tmp.s, w->tmp.len - 1, out);
  }
  return false;
}

int main(int argc, char **argv) {
  tool_init(PROG);
  const char *lang = "en", *output = NULL;
  long threads = 1;
  bool aggressive = false, no_escape = false, detok = false, norm = false, norm_only = false,
       lower = false, zstd = false, quiet = false, unbuffered = false;
  const nmt_opt opts[] = {
    {"lang", 'l', NMT_OPT_STR, &lang, "L", "language: en, fr, de, cs, es, it, ro, pt, nl, ... (default en)"},
    {"aggressive", 'a', NMT_OPT_FLAG, &aggressive, NULL, "split hyphens inside words as @-@"},
    {"no-escape", 0, NMT_OPT_FLAG, &no_escape, NULL, "do not escape & | < > ' \" [ ] as XML entities"},
    {"detokenize", 'd', NMT_OPT_FLAG, &detok, NULL, "detokenize (detokenizer.perl)"},
    {"normalize", 0, NMT_OPT_FLAG, &norm, NULL, "normalize punctuation, then tokenize"},
    {"normalize-only", 0, NMT_OPT_FLAG, &norm_only, NULL, "only normalize punctuation (normalize-punctuation.perl)"},
    {"lowercase-only", 0, NMT_OPT_FLAG, &lower, NULL, "only lowercase (lowercase.perl)"},
    {"threads", 'j', NMT_OPT_INT, &threads, "N", "worker threads (output order is kept; 1 to 256)", .min = 1, .max = 256},
    {"output", 'o', NMT_OPT_STR, &output, "FILE", "write here (complete or not at all) instead of stdout"},
    {"zstd", 'z', NMT_OPT_FLAG, &zstd, NULL, "zstd-compress the output"},
    {"quiet", 'q', NMT_OPT_FLAG, &quiet, NULL, "accepted for Moses compatibility"},
    {NULL, 'b', NMT_OPT_FLAG, &unbuffered, NULL, "accepted for Moses compatibility (ignored)"},
    {0}};
  const nmt_cli cli = {
    .prog = PROG,
    .usage = "[options] [FILE...]",
    .summary = "Moses-compatible tokenizer, detokenizer, punctuation normalizer and lowercaser.\n"
               "Reads FILEs (plain, zstd or gzip) or stdin; writes stdout.",
    .example = "nmt-tokenize -l fr -a --no-escape -j 2 train.fr > train.tok.fr",
    .opts = opts,
    .single_dash_long = true, /* -no-escape, -threads 4 */
  };
  nmt_strlist pos;
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (st) nmt_die(PROG, st);
  if (detok + norm + norm_only + lower > 1)
    nmt_die(PROG, nmt_fail(NMT_EUSAGE, "choose one of -d, --normalize, --normalize-only, --lowercase-only"));

  job j = {.mode = detok ? DETOKENIZE : norm ? NORMALIZE_TOKENIZE : norm_only ? NORMALIZE_ONLY
                       : lower ? LOWERCASE : TOKENIZE};
  bool known = tok_config_init(&j.cfg, lang, aggressive, !no_escape);
  if (!known && (j.mode == TOKENIZE || j.mode == NORMALIZE_TOKENIZE))
    nmt_warn(PROG, "no non-breaking prefixes for language '%s', using English ones", lang);
  if (j.mode == DETOKENIZE && strcmp(lang, "en") && strcmp(lang, "fr") && strcmp(lang, "it") &&
      strcmp(lang, "cs") && strcmp(lang, "fi"))
    nmt_warn(PROG, "no detokenizer rules for language '%s'", lang);

  int nin = pos.n ? pos.n : 1;
  nmt_reader **in = calloc((size_t)nin, sizeof *in);
  for (int i = 0; i < nin; i++)
    if ((st = nmt_reader_open(&in[i], pos.n ? pos.v[i] : "-"))) nmt_die(PROG, st);
  nmt_writer *w;
  if ((st = nmt_writer_open(&w, output, zstd ? NMT_W_ZSTD : 0))) nmt_die(PROG, st);
  if ((st = chunks_run(in, nin, w, (int)threads, one_line, &j))) nmt_die(PROG, st);
  if ((st = nmt_writer_commit(w))) nmt_die(PROG, st);
  for (int i = 0; i < nin; i++) nmt_reader_close(in[i]);
  free(in);
  free(pos.v);
  tok_config_free(&j.cfg);
  return 0;
}

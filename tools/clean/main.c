/* nmt-clean: filter a parallel corpus as Moses' clean-corpus-n.perl does
 * (same pairs kept, same text written), plus optional TSV/CSV, duplicate,
 * token-length and language filters. */
#include "text/clean.h"
#include "text/clean_dedupe.h"
#include "base/cli.h"
#include "base/err.h"
#include "io/io.h"
#include "text/langid.h"
#include "pairs.h"
#include "io/tsv.h"
#include "tool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *PROG = "nmt-clean";
enum { SHOW_BAD = 5 }; /* invalid lines named under -v */

/* Our drops beyond the Moses verdicts. */
enum { DROP_UTF8 = NMT_CLEAN_NRULES, DROP_LANG, DROP_DUP, NDROPS };

typedef struct {
  nmt_clean_opts rules;
  const char *lang_src, *lang_tgt, *lang_set;
  bool dedupe, verbose, quiet;
  nmt_langid *lid;
  nmt_dedupe *seen;
  long read, kept, dropped[NDROPS];
} cleaner;

static int open_extras(cleaner *c) {
  if (c->dedupe && nmt_dedupe_new(&c->seen)) return NMT_EIO;
  if (!c->lang_src && !c->lang_tgt) return NMT_OK;
  char set[1024];
  const char *base = c->lang_set ? c->lang_set : NMT_LANGID_COMMON;
  if (!strcmp(base, "all")) snprintf(set, sizeof set, "all");
  else snprintf(set, sizeof set, "%s,%s,%s", base, c->lang_src ? c->lang_src : "", c->lang_tgt ? c->lang_tgt : "");
  return nmt_langid_open(&c->lid, NULL, set);
}

/* Keep unless textcat names other languages only (SHORT/UNKNOWN keep). */
static bool lang_ok(cleaner *c, const nmt_clean_side *s, const char *lang) {
  return !lang || nmt_langid_check(c->lid, s->text, s->len, lang) != NMT_LANGID_NO;
}

static void report(const cleaner *c) {
  if (c->quiet) return;
  const nmt_clean_opts *o = &c->rules;
  fprintf(stderr, "%s: read %ld pairs, kept %ld, dropped %ld\n", PROG, c->read, c->kept, c->read - c->kept);
  fprintf(stderr, "%s: dropped %ld invalid UTF-8\n", PROG, c->dropped[DROP_UTF8]);
  fprintf(stderr, "%s: dropped %ld empty\n", PROG, c->dropped[NMT_CLEAN_EMPTY]);
  fprintf(stderr, "%s: dropped %ld over %ld words\n", PROG, c->dropped[NMT_CLEAN_TOO_LONG], o->max);
  fprintf(stderr, "%s: dropped %ld under %ld words\n", PROG, c->dropped[NMT_CLEAN_TOO_SHORT], o->min);
  if (!o->ignore_ratio)
    fprintf(stderr, "%s: dropped %ld word ratio over %g\n", PROG, c->dropped[NMT_CLEAN_RATIO], o->ratio);
  fprintf(stderr, "%s: dropped %ld word over %ld chars\n", PROG, c->dropped[NMT_CLEAN_WORD_LENGTH], o->max_word_length);
  if (o->max_token_chars > 0)
    fprintf(stderr, "%s: dropped %ld token over %ld chars\n", PROG, c->dropped[NMT_CLEAN_TOKEN_CHARS], o->max_token_chars);
  if (c->lid) fprintf(stderr, "%s: dropped %ld wrong language\n", PROG, c->dropped[DROP_LANG]);
  if (c->seen) fprintf(stderr, "%s: dropped %ld duplicate\n", PROG, c->dropped[DROP_DUP]);
}

static int run(cleaner *c, pair_source *in, pair_sink *out, nmt_writer *retained) {
  nmt_clean_side s = {0}, t = {0};
  bool factored = false;
  pair p;
  int got = 0, st = NMT_OK;
  while (!st) {
    if (pairs_stalled(in) && (st = pairs_sink_flush(out))) break;
    if ((got = pairs_next(in, &p)) <= 0) break;
    if (++c->read == 1) factored = nmt_clean_is_factored(p.src, p.src_len, p.tgt, p.tgt_len);
    if (p.bad_file) {
      if (c->verbose && c->dropped[DROP_UTF8] < SHOW_BAD) {
        if (p.bad_byte >= 0) fprintf(stderr, "%s: %s:%ld: invalid UTF-8 at byte %ld, pair dropped\n", PROG, p.bad_file, p.line, p.bad_byte);
        else fprintf(stderr, "%s: %s:%ld: invalid UTF-8, pair dropped\n", PROG, p.bad_file, p.line);
      }
      c->dropped[DROP_UTF8]++;
      continue;
    }
    if ((st = nmt_clean_side_set(&s, &c->rules, factored, p.src, p.src_len)) ||
        (st = nmt_clean_side_set(&t, &c->rules, factored, p.tgt, p.tgt_len)))
      break;
    int why = nmt_clean_judge(&c->rules, &s, &t);
    if (why == NMT_CLEAN_KEEP && factored && (nmt_clean_has_blank_factor(&s) || nmt_clean_has_blank_factor(&t))) {
      st = nmt_fail(NMT_EINPUT, "%s:%ld: blank factor ('||' or ' |') in a factored corpus (its first line has '|')",
                    pairs_name(in, !nmt_clean_has_blank_factor(&s)), p.line);
      break;
    }
    if (why == NMT_CLEAN_KEEP && c->lid && (!lang_ok(c, &s, c->lang_src) || !lang_ok(c, &t, c->lang_tgt))) why = DROP_LANG;
    if (why == NMT_CLEAN_KEEP && c->seen) {
      int fresh = nmt_dedupe_add(c->seen, s.text, s.len, t.text, t.len);
      if (fresh < 0) { st = NMT_EIO; break; }
      if (!fresh) why = DROP_DUP;
    }
    if (why != NMT_CLEAN_KEEP) { c->dropped[why]++; continue; }
    c->kept++;
    if ((st = pairs_sink_write(out, s.text, s.len, t.text, t.len))) break;
    if (retained && (st = nmt_writer_printf(retained, "%ld\n", p.line))) break;
  }
  if (!st && got < 0) st = nmt_errcode();
  nmt_clean_side_free(&s);
  nmt_clean_side_free(&t);
  return st;
}

static const char *USAGE =
    "[options] SRC TGT -o OUT_SRC OUT_TGT\n"
    "       nmt-clean --tsv|--csv [options] [TABLE] [-o OUT_TABLE]\n"
    "       nmt-clean --moses [options] CORPUS L1 L2 OUT MIN MAX [LINES_RETAINED]";

/* What the command line names besides the rules: the files read and written. */
typedef struct {
  nmt_strlist outs, pos;
  const char *retained_path;
  bool tsv, csv, moses, zstd;
  int format; /* NMT_TSV, NMT_CSV, or -1: two plain files */
  const char *in[2], *out[2];
  char *moses_paths[4]; /* CORPUS.L1 CORPUS.L2 OUT.L1 OUT.L2 */
} clean_args;

/* --moses CORPUS L1 L2 OUT MIN MAX [LINES_RETAINED]: MIN and MAX as --min and --max */
static int moses_files(clean_args *a, const nmt_cli *cli) {
  const nmt_strlist *pos = &a->pos;
  int st;
  if (a->format >= 0 || a->outs.n) return nmt_fail(NMT_EUSAGE, "--moses takes its files as arguments, not with --tsv/--csv/-o");
  if (pos->n < 6 || pos->n > 7) return nmt_fail(NMT_EUSAGE, "--moses needs CORPUS L1 L2 OUT MIN MAX [LINES_RETAINED]");
  if ((st = nmt_cli_set(nmt_cli_find(cli, "min"), pos->v[4])) || (st = nmt_cli_set(nmt_cli_find(cli, "max"), pos->v[5])))
    return st;
  char **p = a->moses_paths;
  if (asprintf(&p[0], "%s.%s", pos->v[0], pos->v[1]) < 0 || asprintf(&p[1], "%s.%s", pos->v[0], pos->v[2]) < 0 ||
      asprintf(&p[2], "%s.%s", pos->v[3], pos->v[1]) < 0 || asprintf(&p[3], "%s.%s", pos->v[3], pos->v[2]) < 0)
    st = nmt_fail(NMT_EIO, "out of memory");
  a->in[0] = p[0], a->in[1] = p[1], a->out[0] = p[2], a->out[1] = p[3];
  if (pos->n == 7) a->retained_path = pos->v[6];
  return st;
}

/* The inputs and outputs of the three ways to name them */
static int pick_files(clean_args *a, const nmt_cli *cli) {
  const nmt_strlist *pos = &a->pos, *outs = &a->outs;
  a->format = a->tsv ? NMT_TSV : a->csv ? NMT_CSV : -1;
  if (a->tsv && a->csv) return nmt_fail(NMT_EUSAGE, "--tsv and --csv exclude each other");
  if (a->moses) return moses_files(a, cli);
  if (a->format >= 0) {
    a->in[0] = pos->n ? pos->v[0] : NULL;
    a->out[0] = outs->n ? outs->v[0] : NULL;
    if (pos->n > 1 || outs->n > 1) return nmt_fail(NMT_EUSAGE, "--tsv/--csv read one table and write one (-o FILE or stdout)");
    return NMT_OK;
  }
  if (pos->n != 2) return nmt_fail(NMT_EUSAGE, "need SRC and TGT (or --tsv, --csv, --moses; see --help)");
  if (outs->n != 2) return nmt_fail(NMT_EUSAGE, "need -o OUT_SRC OUT_TGT");
  a->in[0] = pos->v[0], a->in[1] = pos->v[1], a->out[0] = outs->v[0], a->out[1] = outs->v[1];
  return NMT_OK;
}

/* The command line into c's rules and a; a usage error ends the run. */
static void parse_args(cleaner *c, clean_args *a, int argc, char **argv) {
  const nmt_opt opts[] = {
      {"min", 0, NMT_OPT_INT, &c->rules.min, "N", "drop pairs with a side under N words (1)", .min = 0, .max = INFINITY},
      {"max", 0, NMT_OPT_INT, &c->rules.max, "N", "drop pairs with a side over N words (50)", .min = 0, .max = INFINITY},
      {"ratio", 0, NMT_OPT_DOUBLE, &c->rules.ratio, "R", "drop pairs whose word counts differ by more than R times (9)",
       .min = 0, .max = INFINITY, .open_min = true},
      {"ignore-ratio", 0, NMT_OPT_FLAG, &c->rules.ignore_ratio, NULL, "no ratio rule"},
      {"ignore-xml", 0, NMT_OPT_FLAG, &c->rules.ignore_xml, NULL, "count words with <tags> removed"},
      {"max-word-length", 0, NMT_OPT_INT, &c->rules.max_word_length, "N", "drop pairs with a word (or factor) over N chars (1000)",
       .min = 1, .max = INFINITY},
      {"lc", 0, NMT_OPT_FLAG, &c->rules.lc, NULL, "lowercase the output (Perl lc)"},
      {"lines-retained", 0, NMT_OPT_STR, &a->retained_path, "FILE", "write the line numbers of kept pairs"},
      {"output", 'o', NMT_OPT_LIST, &a->outs, "OUT", "output files (two, or one table with --tsv/--csv; none = stdout)"},
      {"moses", 0, NMT_OPT_FLAG, &a->moses, NULL, "clean-corpus-n.perl arguments: CORPUS L1 L2 OUT MIN MAX [RETAINED]"},
      {"tsv", 0, NMT_OPT_FLAG, &a->tsv, NULL, "read and write one table: source<TAB>target, no quoting"},
      {"csv", 0, NMT_OPT_FLAG, &a->csv, NULL, "read and write one table: source,target, RFC 4180 quoting"},
      {"dedupe", 0, NMT_OPT_FLAG, &c->dedupe, NULL, "drop repeated pairs (after normalising)"},
      {"max-token-chars", 0, NMT_OPT_INT, &c->rules.max_token_chars, "N", "drop pairs with a token over N chars (0: off)",
       .min = 0, .max = INFINITY},
      {"lang-src", 0, NMT_OPT_STR, &c->lang_src, "LANG", "drop pairs textcat places in other languages (unsure: kept)"},
      {"lang-tgt", 0, NMT_OPT_STR, &c->lang_tgt, "LANG", "the same for the target side"},
      {"lang-set", 0, NMT_OPT_STR, &c->lang_set, "L1,L2..", "languages textcat tells apart (all = 160+; default: 37 common ones)"},
      {"zstd", 'z', NMT_OPT_FLAG, &a->zstd, NULL, "compress the outputs with zstd"},
      {"verbose", 'v', NMT_OPT_FLAG, &c->verbose, NULL, "name the first invalid UTF-8 lines"},
      {"quiet", 'q', NMT_OPT_FLAG, &c->quiet, NULL, "no summary on stderr"},
      {0}};
  const nmt_cli cli = {PROG, USAGE,
                       "Filter a parallel corpus as Moses clean-corpus-n.perl does; one summary line per rule on stderr.",
                       "nmt-clean train.tok.fr train.tok.en -o clean.fr clean.en --min 1 --max 50 --ratio 9",
                       opts, true};
  int st = nmt_cli_parse(&cli, argc, argv, &a->pos);
  if (st) nmt_die(PROG, st);
  st = pick_files(a, &cli);
  if (!st && c->rules.max < c->rules.min) st = nmt_fail(NMT_EUSAGE, "need --min <= --max (got %ld > %ld)", c->rules.min, c->rules.max);
  if (st) nmt_die(PROG, st);
}

int main(int argc, char **argv) {
  tool_init(PROG);
  cleaner c = {0};
  nmt_clean_defaults(&c.rules);
  clean_args a = {0};
  parse_args(&c, &a, argc, argv);

  pair_source *src = NULL;
  pair_sink *sink = NULL;
  nmt_writer *retained = NULL;
  int st;
  if ((st = open_extras(&c)) || (st = pairs_open(&src, a.format, a.in[0], a.in[1])) ||
      (st = pairs_sink_open(&sink, a.format, a.out[0], a.out[1], a.zstd ? NMT_W_ZSTD : 0)) ||
      (a.retained_path && (st = nmt_writer_open(&retained, a.retained_path, 0))))
    nmt_die(PROG, st);
  if ((st = run(&c, src, sink, retained))) nmt_die(PROG, st);
  if ((st = pairs_sink_commit(sink, retained))) nmt_die(PROG, st);
  report(&c);
  pairs_close(src);
  nmt_langid_close(c.lid);
  nmt_dedupe_free(c.seen);
  for (int i = 0; i < 4; i++) free(a.moses_paths[i]);
  free(a.pos.v);
  free(a.outs.v);
  return 0;
}

/* A small option layer: "--opt=val", "--opt val", "-o val", repeatable or
 * multi-value options ("-m bleu chrf ter"), positionals, "--" to end options,
 * "--help" (usage from the table plus an example) and "--version". */
#ifndef NMT_CLI_H
#define NMT_CLI_H
#include <stdbool.h>

enum nmt_opt_kind {
  NMT_OPT_FLAG,   /* bool *: set true */
  NMT_OPT_INT,    /* long * */
  NMT_OPT_DOUBLE, /* double * */
  NMT_OPT_STR,    /* const char **: last one wins */
  NMT_OPT_LIST    /* nmt_strlist *: every value after the option until the next
                     option-looking argument; repeated uses append */
};

typedef struct {
  int n;
  const char **v;
} nmt_strlist;

typedef struct {
  const char *lng;   /* long name without "--", e.g. "min-frequency"; may be NULL */
  char shrt;         /* short letter or 0 */
  int kind;          /* enum nmt_opt_kind */
  void *dst;
  const char *meta;  /* value name in --help, e.g. "N" */
  const char *help;
} nmt_opt;

typedef struct {
  const char *prog;     /* "nmt-bpe" */
  const char *usage;    /* "learn -s N [options] FILE..." */
  const char *summary;  /* one line saying what it does */
  const char *example;  /* shown under "Example:" */
  const nmt_opt *opts;  /* terminated by an entry with lng == NULL && shrt == 0 */
  /* Extra option spellings (not shown): Moses/subword-nmt style single-dash long
   * options like "-no-escape" are accepted when listed here as "no-escape". */
  bool single_dash_long;
} nmt_cli;

/* Parse argv[1..argc). Positionals are returned in *pos (argv-owned strings,
 * the array is malloc'ed). Returns NMT_OK, NMT_EUSAGE (message set) or NMT_DONE
 * after printing --help or --version to stdout. */
int nmt_cli_parse(const nmt_cli *cli, int argc, char **argv, nmt_strlist *pos);
void nmt_cli_usage(const nmt_cli *cli, void *file /* FILE* */);

#define NMT_VERSION "0.1.0"

#endif

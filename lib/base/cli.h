/* A small option layer: "--opt=val", "--opt val", "-o val", repeatable or
 * multi-value options ("-m bleu chrf ter"), positionals, "--" to end options,
 * "--help" (usage from the table plus an example; "--help=man" and "--help=bash": the
 * same table as a man page and a bash completion, base/cli_doc.h) and "--version". Numbers are
 * checked against their row's bounds, and a value option given twice is a
 * usage error, both with one line naming the option as it was spelled. A row
 * holds everything about its option once: names, default, bounds, help; a
 * tool's table may be a file of rows (NMT_CLI_FIELD, NMT_CLI_ROW below). */
#ifndef NMT_BASE_CLI_H
#define NMT_BASE_CLI_H
#include <math.h> /* INFINITY, for a row with no upper bound */
#include <stdbool.h>
#include <stddef.h> /* size_t */

enum nmt_opt_kind {
  NMT_OPT_FLAG,   /* bool *: set true */
  NMT_OPT_INT,    /* long *: a decimal integer within the row's bounds */
  NMT_OPT_DOUBLE, /* double *: a finite number within the row's bounds */
  NMT_OPT_STR,    /* const char ** */
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
  /* NMT_OPT_INT and NMT_OPT_DOUBLE rows must give bounds (min < max), e.g.
   * `.min = 1, .max = 65536`: values in [min, max]; max = INFINITY: no upper
   * bound (an integer still fits a long); open_min/open_max exclude that end
   * (a rate > 0, a dropout < 1). Other rows leave them out. */
  double min, max;
  bool open_min, open_max;
  bool once; /* NMT_OPT_LIST: all its values after one use (nmt-decode -m a.bin b.bin); a second
                use is "given twice" as for a value option */
  /* A value row whose value may be left out ("--exponential-smoothing" alone,
   * "--alignment" alone): this text is its value then, and when a preset names
   * the row alone. The next argument is the value unless it looks like an
   * option; "--opt=VAL" always is. NULL: the value is required. */
  const char *implicit;
  /* The value before any layer gives one, as the command line would give it ("64", "adam"):
   * nmt_cli_defaults sets it, and --help ends the row's help with it and the bounds,
   * "(64; between 1 and 10000)". NULL: the destination keeps what the tool put there
   * (a default that is no value of the row, "the cores", is said in the help). */
  const char *dflt;
  /* Another long name of the row, shown beside it in --help ("--tokenize, --tok"). */
  const char *alias;
} nmt_opt;

/* A tool's option table as a file of rows, each
 *   ROW(KIND, field, "long", 's', "META", "help", .dflt = "64", .min = 1, .max = 10000)
 * with KIND one of FLAG, INT, DOUBLE, STR, LIST and nmt_opt's other fields by name. Included
 * with `#define ROW NMT_CLI_FIELD` inside a struct, the rows declare its fields; with
 * `#define ROW(...) NMT_CLI_ROW(a, __VA_ARGS__)` inside an array, they are nmt_opt rows
 * writing into *a (tools/bleu/options.def, tools/train/options.def). */
#define NMT_CLI_CTYPE_FLAG bool
#define NMT_CLI_CTYPE_INT long
#define NMT_CLI_CTYPE_DOUBLE double
#define NMT_CLI_CTYPE_STR const char *
#define NMT_CLI_CTYPE_LIST nmt_strlist
#define NMT_CLI_FIELD(kind, field, ...) NMT_CLI_CTYPE_##kind field;
#define NMT_CLI_ROW(a, kind, field, lng, shrt, meta, ...) {lng, shrt, NMT_OPT_##kind, &(a)->field, meta, __VA_ARGS__},

typedef struct {
  const char *prog;     /* "nmt-bpe" */
  const char *usage;    /* "learn -s N [options] FILE..." */
  const char *summary;  /* one line saying what it does */
  const char *example;  /* shown under "Example:" */
  const nmt_opt *opts;  /* terminated by an entry with lng == NULL && shrt == 0 */
  /* Extra option spellings (not shown): Moses/subword-nmt style single-dash long
   * options like "-no-escape" are accepted when listed here as "no-escape". */
  bool single_dash_long;
  /* A second line for --version (what the tool runs on), or NULL. */
  const char *(*version_detail)(void);
  /* The exit statuses of this tool alone, for its man page after the shared ones: lines
   * "N what", e.g. "4 a drain cut short (nmt-serve)"; NULL: none. */
  const char *exits;
} nmt_cli;

/* Parse argv[1..argc). Positionals are returned in *pos (argv-owned strings,
 * the array is malloc'ed). Returns NMT_OK, NMT_EUSAGE (message set) or NMT_DONE
 * after printing --help or --version to stdout. Within one call an INT, DOUBLE
 * or STR option (or another row with the same dst) may be given once; a later
 * call may set it again, so layers of flags (a preset, then the command line)
 * are successive calls on the same table; a LIST given in a call replaces the
 * values an earlier call gave it. */
int nmt_cli_parse(const nmt_cli *cli, int argc, char **argv, nmt_strlist *pos);
/* Set every row that has a default to it (before the first layer). NMT_OK, or NMT_EUSAGE
 * naming a default the row refuses (a bug in the table). */
int nmt_cli_defaults(const nmt_cli *cli);
/* Set row o's destination from val as the command line would (bounds checked):
 * for values given as positionals; NULL is the row's implicit value. NMT_OK or
 * NMT_EUSAGE (message set). */
int nmt_cli_set(const nmt_opt *o, const char *val);
/* Whether v is within numeric row o's bounds. */
bool nmt_cli_in_bounds(const nmt_opt *o, double v);
/* The row whose long name or alias is `lng`, or NULL. */
const nmt_opt *nmt_cli_find(const nmt_cli *cli, const char *lng);
void nmt_cli_usage(const nmt_cli *cli, void *file /* FILE* */);
/* What --help adds after a row's help, inside the parentheses: "64; between 1 and 10000",
 * "adam"; "" for a row without a default. */
void nmt_cli_dflt_text(const nmt_opt *o, char *buf, size_t n);
/* The rows every tool has beside its table, -h/--help and -V/--version (for --help and its
 * other renderings, base/cli_doc.h); parsed apart from the table. */
extern const nmt_opt nmt_cli_builtin[];

#define NMT_VERSION "0.2.0"

#endif

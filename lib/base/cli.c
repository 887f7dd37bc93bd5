/* Option parsing from a table; see base/cli.h for the accepted spellings. */
#include "base/cli.h"
#include "base/cli_doc.h"
#include "base/err.h"
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The row named name[0..len), by its long name or (*alias set) its alias. */
static const nmt_opt *find_long(const nmt_cli *cli, const char *name, size_t len, bool *alias) {
  for (const nmt_opt *o = cli->opts; o && (o->lng || o->shrt); o++)
    for (int k = 0; k < 2; k++) {
      const char *s = k ? o->alias : o->lng;
      if (!s || strlen(s) != len || strncmp(s, name, len)) continue;
      if (alias) *alias = k;
      return o;
    }
  return NULL;
}

static const nmt_opt *find_short(const nmt_cli *cli, char c) {
  for (const nmt_opt *o = cli->opts; o && (o->lng || o->shrt); o++)
    if (o->shrt == c) return o;
  return NULL;
}

/* An argument that starts a new option rather than being a value: "-x", "--x",
 * but not "-" alone or a negative number. */
static int looks_like_option(const char *a) {
  if (a[0] != '-' || a[1] == 0) return 0;
  if ((a[1] >= '0' && a[1] <= '9') || a[1] == '.') return 0;
  return 1;
}

/* "-m/--model", "--dropout" or "-b"; "--tok" for a row spelled by its alias */
static void opt_name(const nmt_opt *o, bool alias, char *buf, size_t n) {
  if (alias) snprintf(buf, n, "--%s", o->alias);
  else if (o->lng && o->shrt) snprintf(buf, n, "-%c/--%s", o->shrt, o->lng);
  else if (o->lng) snprintf(buf, n, "--%s", o->lng);
  else snprintf(buf, n, "-%c", o->shrt);
}

static bool numeric(const nmt_opt *o) { return o->kind == NMT_OPT_INT || o->kind == NMT_OPT_DOUBLE; }

/* The values a numeric row takes: "between 1 and 10000", ">= 0", "> 0 and < 1". For
 * --help (help) an upper bound at a float's largest is left out: it only keeps a rate finite. */
static void range(const nmt_opt *o, bool help, char *buf, size_t n) {
  const char *lo = o->open_min ? ">" : ">=", *hi = o->open_max ? "<" : "<=";
  if (isinf(o->max) || (help && o->max >= FLT_MAX)) snprintf(buf, n, "%s %.15g", lo, o->min);
  else if (o->open_min || o->open_max) snprintf(buf, n, "%s %.15g and %s %.15g", lo, o->min, hi, o->max);
  else snprintf(buf, n, "between %.15g and %.15g", o->min, o->max);
}

/* One message form for every bad number: "--dropout must be a finite number >= 0
 * and < 1 (got nan)". */
static int bad_number(const nmt_opt *o, bool alias, const char *val) {
  char name[80], values[160];
  opt_name(o, alias, name, sizeof name);
  range(o, false, values, sizeof values);
  return nmt_fail(NMT_EUSAGE, "%s must be %s %s (got %s)", name, o->kind == NMT_OPT_INT ? "an integer" : "a finite number",
                  values, *val ? val : "''");
}

bool nmt_cli_in_bounds(const nmt_opt *o, double v) {
  return (o->open_min ? v > o->min : v >= o->min) && (o->open_max ? v < o->max : v <= o->max);
}

/* Numbers are whole arguments: no leading space, no trailing garbage, no
 * overflow (ERANGE), nothing outside the row's bounds. */
static int set_number(const nmt_opt *o, bool alias, const char *val) {
  char *end;
  errno = 0;
  if (o->kind == NMT_OPT_INT) {
    long v = strtol(val, &end, 10);
    if (end == val || *end || errno || isspace((unsigned char)*val) || !nmt_cli_in_bounds(o, (double)v))
      return bad_number(o, alias, val);
    *(long *)o->dst = v;
  } else {
    double v = strtod(val, &end);
    if (end == val || *end || errno || isspace((unsigned char)*val) || !isfinite(v) || !nmt_cli_in_bounds(o, v))
      return bad_number(o, alias, val);
    *(double *)o->dst = v;
  }
  return NMT_OK;
}

/* Set o from val, o spelled by its alias or not (for the messages). */
static int set(const nmt_opt *o, bool alias, const char *val) {
  if (!val && o->implicit) val = o->implicit; /* a preset naming the row alone */
  switch (o->kind) {
  case NMT_OPT_INT:
  case NMT_OPT_DOUBLE: return set_number(o, alias, val);
  case NMT_OPT_STR:
    *(const char **)o->dst = val;
    return NMT_OK;
  case NMT_OPT_LIST: {
    nmt_strlist *l = o->dst;
    const char **v = realloc(l->v, sizeof *l->v * (size_t)(l->n + 1));
    if (!v) return nmt_fail(NMT_EIO, "out of memory");
    l->v = v;
    l->v[l->n++] = val;
    return NMT_OK;
  }
  }
  char name[80];
  opt_name(o, alias, name, sizeof name);
  return nmt_fail(NMT_EUSAGE, "%s takes no value", name);
}

int nmt_cli_set(const nmt_opt *o, const char *val) { return set(o, false, val); }

const nmt_opt *nmt_cli_find(const nmt_cli *cli, const char *lng) { return find_long(cli, lng, strlen(lng), NULL); }

int nmt_cli_defaults(const nmt_cli *cli) {
  for (const nmt_opt *o = cli->opts; o && (o->lng || o->shrt); o++)
    if (o->dflt && set(o, false, o->dflt)) return NMT_EUSAGE;
  return NMT_OK;
}

/* One nmt_cli_parse call: how each row was given (0: not, 1: by its names, 2: by its
 * alias; a value option takes one). */
typedef struct {
  const nmt_cli *cli;
  unsigned char *given;
} parse_state;

/* A value option (or a row sharing its dst) given a second time, by any spelling. */
static int once(parse_state *ps, const nmt_opt *o, bool alias) {
  if ((o->kind == NMT_OPT_LIST && !o->once) || o->kind == NMT_OPT_FLAG) return NMT_OK;
  for (const nmt_opt *p = ps->cli->opts; p->lng || p->shrt; p++) {
    int how = ps->given[p - ps->cli->opts];
    if (!how || p->dst != o->dst) continue;
    char name[80], first[80];
    opt_name(o, alias, name, sizeof name);
    opt_name(p, how == 2, first, sizeof first);
    if (!strcmp(name, first)) return nmt_fail(NMT_EUSAGE, "%s given twice", name);
    return nmt_fail(NMT_EUSAGE, "%s given twice (also as %s)", name, first);
  }
  ps->given[o - ps->cli->opts] = alias ? 2 : 1;
  return NMT_OK;
}

/* Apply option o, spelled by its alias or not; its inline value (after '=') or following
 * argv entries. */
static int apply(parse_state *ps, const nmt_opt *o, bool alias, const char *inline_val, int argc, char **argv,
                 int *i) {
  char name[80];
  opt_name(o, alias, name, sizeof name);
  if (o->kind == NMT_OPT_FLAG) {
    if (inline_val) return nmt_fail(NMT_EUSAGE, "%s takes no value", name);
    *(bool *)o->dst = true;
    return NMT_OK;
  }
  if (once(ps, o, alias)) return NMT_EUSAGE;
  /* a list given in this call replaces an earlier layer's (a config file's) */
  if (o->kind == NMT_OPT_LIST && !ps->given[o - ps->cli->opts]) {
    ((nmt_strlist *)o->dst)->n = 0;
    ps->given[o - ps->cli->opts] = alias ? 2 : 1;
  }
  if (inline_val) return set(o, alias, inline_val);
  if (o->implicit && (*i + 1 >= argc || looks_like_option(argv[*i + 1]))) return set(o, alias, o->implicit);
  if (*i + 1 >= argc) return nmt_fail(NMT_EUSAGE, "%s needs a value", name);
  if (o->kind != NMT_OPT_LIST) return set(o, alias, argv[++*i]);
  int taken = 0;
  while (*i + 1 < argc && !looks_like_option(argv[*i + 1])) {
    int st = set(o, alias, argv[++*i]);
    if (st) return st;
    taken++;
  }
  if (!taken) return nmt_fail(NMT_EUSAGE, "%s needs at least one value", name);
  return NMT_OK;
}

static void add_pos(nmt_strlist *pos, const char *a) {
  pos->v = realloc(pos->v, sizeof *pos->v * (size_t)(pos->n + 1));
  pos->v[pos->n++] = a;
}

/* Every numeric row says which values it takes: a row without bounds is a bug
 * in the tool's table, found by any run of the tool. */
static int check_table(const nmt_cli *cli) {
  for (const nmt_opt *o = cli->opts; o && (o->lng || o->shrt); o++) {
    if (!numeric(o) || o->min < o->max) continue;
    char name[80];
    opt_name(o, false, name, sizeof name);
    return nmt_fail(NMT_EUSAGE, "%s: no bounds in the option table", name);
  }
  return NMT_OK;
}

static int parse(parse_state *ps, int argc, char **argv, nmt_strlist *pos) {
  const nmt_cli *cli = ps->cli;
  int only_pos = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (only_pos || !looks_like_option(a)) { add_pos(pos, a); continue; }
    if (!strcmp(a, "--")) { only_pos = 1; continue; }
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      nmt_cli_usage(cli, stdout);
      return NMT_DONE;
    }
    if (!strncmp(a, "--help=", 7)) return nmt_cli_doc_arg(cli, a + 7);
    if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
      printf("%s %s\n", cli->prog, NMT_VERSION);
      if (cli->version_detail) printf("%s\n", cli->version_detail());
      return NMT_DONE;
    }
    int dashes = a[1] == '-' ? 2 : 1;
    const char *name = a + dashes;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const nmt_opt *o = NULL;
    bool alias = false;
    if (dashes == 2 || (cli->single_dash_long && len > 1)) o = find_long(cli, name, len, &alias);
    if (o) {
      int st = apply(ps, o, alias, eq ? eq + 1 : NULL, argc, argv, &i);
      if (st) return st;
      continue;
    }
    if (dashes == 2) return nmt_fail(NMT_EUSAGE, "unknown option '%s' (see --help)", a);
    /* short options: "-x", "-xVALUE", "-abc" (flags) */
    for (const char *c = name; *c; c++) {
      o = find_short(cli, *c);
      if (!o) return nmt_fail(NMT_EUSAGE, "unknown option '-%c' in '%s' (see --help)", *c, a);
      if (o->kind == NMT_OPT_FLAG) { *(bool *)o->dst = true; continue; }
      int st = apply(ps, o, false, c[1] ? c + 1 : NULL, argc, argv, &i);
      if (st) return st;
      break;
    }
  }
  return NMT_OK;
}

int nmt_cli_parse(const nmt_cli *cli, int argc, char **argv, nmt_strlist *pos) {
  pos->n = 0;
  pos->v = NULL;
  int st = check_table(cli);
  if (st) return st;
  size_t nopts = 0;
  while (cli->opts && (cli->opts[nopts].lng || cli->opts[nopts].shrt)) nopts++;
  parse_state ps = {cli, calloc(nopts + 1, 1)};
  if (!ps.given) return nmt_fail(NMT_EIO, "out of memory");
  st = parse(&ps, argc, argv, pos);
  free(ps.given);
  return st;
}

const nmt_opt nmt_cli_builtin[] = {{"help", 'h', NMT_OPT_FLAG, NULL, NULL, "show this help"},
                                    {"version", 'V', NMT_OPT_FLAG, NULL, NULL, "show the version"},
                                    {0}};

void nmt_cli_dflt_text(const nmt_opt *o, char *buf, size_t n) {
  char values[160] = "";
  if (o->dflt && numeric(o)) range(o, true, values, sizeof values);
  snprintf(buf, n, "%s%s%s", o->dflt ? o->dflt : "", *values ? "; " : "", values);
}

/* One row of --help: "  -m, --model MODEL...   help (default; bounds)" */
static void usage_row(FILE *f, const nmt_opt *o) {
  char left[96], dflt[200];
  int n = 0;
  if (o->shrt) n += snprintf(left + n, sizeof left - n, "-%c%s", o->shrt, o->lng ? ", " : "");
  else n += snprintf(left + n, sizeof left - n, "    ");
  if (o->lng) n += snprintf(left + n, sizeof left - n, "--%s", o->lng);
  if (o->alias) n += snprintf(left + n, sizeof left - n, ", --%s", o->alias);
  if (o->kind != NMT_OPT_FLAG)
    snprintf(left + n, sizeof left - n, o->implicit ? " [%s%s]" : " %s%s", o->meta ? o->meta : "VAL",
             o->kind == NMT_OPT_LIST ? "..." : "");
  nmt_cli_dflt_text(o, dflt, sizeof dflt);
  fprintf(f, "  %-30s %s", left, o->help ? o->help : "");
  if (*dflt) fprintf(f, "%s(%s)", o->help ? " " : "", dflt);
  fprintf(f, "\n");
}

void nmt_cli_usage(const nmt_cli *cli, void *fp) {
  FILE *f = fp;
  fprintf(f, "Usage: %s %s\n", cli->prog, cli->usage);
  if (cli->summary) fprintf(f, "%s\n", cli->summary);
  fprintf(f, "\nOptions:\n");
  for (const nmt_opt *o = cli->opts; o && (o->lng || o->shrt); o++) usage_row(f, o);
  for (const nmt_opt *o = nmt_cli_builtin; o->lng; o++) usage_row(f, o);
  if (cli->example) fprintf(f, "\nExample:\n  %s\n", cli->example);
}

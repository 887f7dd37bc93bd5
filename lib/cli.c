/* Option parsing from a table; see cli.h for the accepted spellings. */
#include "cli.h"
#include "err.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const nmt_opt *find_long(const nmt_cli *cli, const char *name, size_t len) {
  for (const nmt_opt *o = cli->opts; o && (o->lng || o->shrt); o++)
    if (o->lng && strlen(o->lng) == len && !strncmp(o->lng, name, len)) return o;
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

static void opt_name(const nmt_opt *o, char *buf, size_t n) {
  if (o->lng) snprintf(buf, n, "--%s", o->lng);
  else snprintf(buf, n, "-%c", o->shrt);
}

static int set_value(const nmt_opt *o, const char *val) {
  char name[64];
  opt_name(o, name, sizeof name);
  char *end;
  errno = 0;
  switch (o->kind) {
  case NMT_OPT_INT: {
    long v = strtol(val, &end, 10);
    if (end == val || *end || errno) return nmt_fail(NMT_EUSAGE, "%s: not an integer: '%s'", name, val);
    *(long *)o->dst = v;
    return NMT_OK;
  }
  case NMT_OPT_DOUBLE: {
    double v = strtod(val, &end);
    if (end == val || *end || errno) return nmt_fail(NMT_EUSAGE, "%s: not a number: '%s'", name, val);
    *(double *)o->dst = v;
    return NMT_OK;
  }
  case NMT_OPT_STR:
    *(const char **)o->dst = val;
    return NMT_OK;
  case NMT_OPT_LIST: {
    nmt_strlist *l = o->dst;
    l->v = realloc(l->v, sizeof *l->v * (size_t)(l->n + 1));
    l->v[l->n++] = val;
    return NMT_OK;
  }
  }
  return nmt_fail(NMT_EUSAGE, "%s: bad option kind", name);
}

/* Apply option o; its inline value (after '=') or following argv entries. */
static int apply(const nmt_opt *o, const char *inline_val, int argc, char **argv, int *i) {
  char name[64];
  opt_name(o, name, sizeof name);
  if (o->kind == NMT_OPT_FLAG) {
    if (inline_val) return nmt_fail(NMT_EUSAGE, "%s takes no value", name);
    *(bool *)o->dst = true;
    return NMT_OK;
  }
  if (inline_val) return set_value(o, inline_val);
  if (*i + 1 >= argc) return nmt_fail(NMT_EUSAGE, "%s needs a value", name);
  if (o->kind != NMT_OPT_LIST) return set_value(o, argv[++*i]);
  int taken = 0;
  while (*i + 1 < argc && !looks_like_option(argv[*i + 1])) {
    if (set_value(o, argv[++*i])) return NMT_EUSAGE;
    taken++;
  }
  if (!taken) return nmt_fail(NMT_EUSAGE, "%s needs at least one value", name);
  return NMT_OK;
}

static void add_pos(nmt_strlist *pos, const char *a) {
  pos->v = realloc(pos->v, sizeof *pos->v * (size_t)(pos->n + 1));
  pos->v[pos->n++] = a;
}

int nmt_cli_parse(const nmt_cli *cli, int argc, char **argv, nmt_strlist *pos) {
  pos->n = 0;
  pos->v = NULL;
  int only_pos = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (only_pos || !looks_like_option(a)) { add_pos(pos, a); continue; }
    if (!strcmp(a, "--")) { only_pos = 1; continue; }
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      nmt_cli_usage(cli, stdout);
      return NMT_DONE;
    }
    if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
      printf("%s %s\n", cli->prog, NMT_VERSION);
      return NMT_DONE;
    }
    int dashes = a[1] == '-' ? 2 : 1;
    const char *name = a + dashes;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const nmt_opt *o = NULL;
    if (dashes == 2 || (cli->single_dash_long && len > 1)) o = find_long(cli, name, len);
    if (o) {
      if (apply(o, eq ? eq + 1 : NULL, argc, argv, &i)) return NMT_EUSAGE;
      continue;
    }
    if (dashes == 2) return nmt_fail(NMT_EUSAGE, "unknown option '%s' (see --help)", a);
    /* short options: "-x", "-xVALUE", "-abc" (flags) */
    for (const char *c = name; *c; c++) {
      o = find_short(cli, *c);
      if (!o) return nmt_fail(NMT_EUSAGE, "unknown option '-%c' in '%s' (see --help)", *c, a);
      if (o->kind == NMT_OPT_FLAG) { *(bool *)o->dst = true; continue; }
      if (c[1]) { if (apply(o, c + 1, argc, argv, &i)) return NMT_EUSAGE; }
      else if (apply(o, NULL, argc, argv, &i)) return NMT_EUSAGE;
      break;
    }
  }
  return NMT_OK;
}

void nmt_cli_usage(const nmt_cli *cli, void *fp) {
  FILE *f = fp;
  fprintf(f, "Usage: %s %s\n", cli->prog, cli->usage);
  if (cli->summary) fprintf(f, "%s\n", cli->summary);
  fprintf(f, "\nOptions:\n");
  for (const nmt_opt *o = cli->opts; o && (o->lng || o->shrt); o++) {
    char left[96];
    int n = 0;
    if (o->shrt) n += snprintf(left + n, sizeof left - n, "-%c%s", o->shrt, o->lng ? ", " : "");
    else n += snprintf(left + n, sizeof left - n, "    ");
    if (o->lng) n += snprintf(left + n, sizeof left - n, "--%s", o->lng);
    if (o->kind != NMT_OPT_FLAG)
      snprintf(left + n, sizeof left - n, " %s%s", o->meta ? o->meta : "VAL",
               o->kind == NMT_OPT_LIST ? "..." : "");
    fprintf(f, "  %-30s %s\n", left, o->help ? o->help : "");
  }
  fprintf(f, "  %-30s %s\n", "-h, --help", "show this help");
  fprintf(f, "  %-30s %s\n", "-V, --version", "show the version");
  if (cli->example) fprintf(f, "\nExample:\n  %s\n", cli->example);
}

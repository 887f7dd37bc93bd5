/* nmt-train -c FILE.yml: a YAML mapping whose keys are nmt-train's long options
 * (libyaml reads it), applied as one layer of flags between a preset and the
 * command line; and --dump-config, the effective options as such a file. */
#include "base/err.h"
#include "base/strmap.h"
#include "train_tool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

/* A libyaml event's scalar, copied (the event is deleted after it). */
static char *scalar_of(const yaml_event_t *e) {
  return strndup((const char *)e->data.scalar.value, e->data.scalar.length);
}

static int bad(const train_config *c, int line, const char *what, const char *arg) {
  return nmt_fail(NMT_EUSAGE, "%s:%d: %s%s%s%s", c->path, line, what, arg ? " '" : "", arg ? arg : "",
                  arg ? "'" : "");
}

static int add_value(train_config_entry *e, yaml_event_t *ev) {
  char **v = realloc(e->vals, sizeof *v * (size_t)(e->nvals + 1));
  if (!v) return nmt_fail(NMT_EIO, "out of memory");
  e->vals = v;
  if (!(v[e->nvals] = scalar_of(ev))) return nmt_fail(NMT_EIO, "out of memory");
  e->nvals++;
  return NMT_OK;
}

/* A mapping value: a scalar, or a sequence of scalars (a list option). */
static int read_value(train_config *c, yaml_parser_t *p, train_config_entry *e) {
  yaml_event_t ev;
  if (!yaml_parser_parse(p, &ev)) return NMT_EINPUT;
  int st = NMT_OK;
  if (ev.type == YAML_SCALAR_EVENT) {
    /* `key:` alone or `key: ~` is YAML's null: the option without a value */
    const char *s = (const char *)ev.data.scalar.value;
    e->null = ev.data.scalar.plain_implicit && (!*s || !strcmp(s, "~") || !strcmp(s, "null"));
    if (!e->null) st = add_value(e, &ev);
  } else if (ev.type == YAML_SEQUENCE_START_EVENT) {
    e->seq = true;
    for (;;) {
      yaml_event_delete(&ev);
      if (!yaml_parser_parse(p, &ev)) return NMT_EINPUT;
      if (ev.type == YAML_SEQUENCE_END_EVENT) break;
      if (ev.type != YAML_SCALAR_EVENT) {
        st = bad(c, (int)ev.start_mark.line + 1, "a list of plain values expected for", e->key);
        break;
      }
      if ((st = add_value(e, &ev))) break;
    }
  } else
    st = bad(c, (int)ev.start_mark.line + 1, "a value or a list expected for", e->key);
  yaml_event_delete(&ev);
  return st;
}

/* The option a key names, or NULL: the keys are the long options but -c's and --dump-config. */
static const nmt_opt *key_option(const nmt_cli *cli, const char *key) {
  return strcmp(key, "config") && strcmp(key, "dump-config") ? nmt_cli_find(cli, key) : NULL;
}

/* One key, checked as soon as it is read (known, not given before: `seen` holds the
 * keys so far, so the file is refused at its first bad key), then its value. */
static int read_entry(train_config *c, yaml_parser_t *p, const nmt_cli *cli, nmt_strmap *seen, const yaml_event_t *ev,
                      int line) {
  char *key = scalar_of(ev);
  if (!key) return nmt_fail(NMT_EIO, "out of memory");
  int32_t before = nmt_strmap_size(seen);
  int st = !key_option(cli, key)                           ? bad(c, line, "unknown key (the keys are nmt-train's long options):", key)
           : nmt_strmap_intern(seen, key, strlen(key)) < 0 ? nmt_fail(NMT_EIO, "out of memory")
           : nmt_strmap_size(seen) == before               ? bad(c, line, "a key given twice:", key)
                                                           : NMT_OK;
  train_config_entry *e = st ? NULL : realloc(c->e, sizeof *e * (size_t)(c->n + 1));
  if (!st && !e) st = nmt_fail(NMT_EIO, "out of memory");
  if (st) {
    free(key);
    return st;
  }
  c->e = e;
  c->e[c->n] = (train_config_entry){.key = key, .line = line};
  return read_value(c, p, &c->e[c->n++]);
}

static int read_entries(train_config *c, yaml_parser_t *p, const nmt_cli *cli, nmt_strmap *seen) {
  yaml_event_t ev;
  int depth = 0; /* 1 inside the top mapping */
  for (;;) {
    if (!yaml_parser_parse(p, &ev)) return NMT_EINPUT;
    int line = (int)ev.start_mark.line + 1, st = NMT_OK;
    yaml_event_type_t type = ev.type;
    if (type == YAML_MAPPING_START_EVENT && depth == 0) depth = 1;
    else if (type == YAML_SCALAR_EVENT && depth == 1) st = read_entry(c, p, cli, seen, &ev, line);
    else if (type == YAML_MAPPING_END_EVENT && depth == 1) depth = 2;
    else if (type != YAML_STREAM_START_EVENT && type != YAML_DOCUMENT_START_EVENT &&
             type != YAML_DOCUMENT_END_EVENT && type != YAML_STREAM_END_EVENT &&
             !(type == YAML_SCALAR_EVENT && depth == 0 && !ev.data.scalar.length))
      st = bad(c, line, depth == 2 ? "one mapping (key: value lines) only" : "not a key: value mapping", NULL);
    yaml_event_delete(&ev);
    if (st || type == YAML_STREAM_END_EVENT) return st;
  }
}

int train_config_read(train_config *c, const char *path, const nmt_cli *cli) {
  *c = (train_config){.path = path};
  nmt_strmap *seen = nmt_strmap_new();
  if (!seen) return nmt_fail(NMT_EIO, "out of memory");
  FILE *f = fopen(path, "rb");
  if (!f) {
    nmt_strmap_free(seen);
    return nmt_fail_errno(NMT_EIO, "%s: cannot open", path);
  }
  yaml_parser_t p;
  int st = yaml_parser_initialize(&p) ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
  if (!st) {
    yaml_parser_set_input_file(&p, f);
    st = read_entries(c, &p, cli, seen);
    /* libyaml's own error: its line and problem */
    if (st == NMT_EINPUT)
      st = bad(c, (int)p.problem_mark.line + 1, p.problem ? p.problem : "not YAML", NULL);
    yaml_parser_delete(&p);
  }
  fclose(f);
  nmt_strmap_free(seen);
  return st;
}

static bool yaml_bool(const char *s, bool *v) {
  if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on")) return *v = true, true;
  if (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off")) return *v = false, true;
  return false;
}

/* A message from nmt_cli_set ("--dropout must be ...") with the file and line first. */
static int at_line(const train_config *c, int line) {
  char why[512];
  snprintf(why, sizeof why, "%s", nmt_errmsg());
  return nmt_fail(NMT_EUSAGE, "%s:%d: %s", c->path, line, why);
}

static int apply_entry(const train_config *c, const train_config_entry *e, const nmt_cli *cli,
                       const char *(*negation)(const char *flag)) {
  const nmt_opt *o = key_option(cli, e->key); /* known: read_entry checked it against the same rows */
  if (o->kind == NMT_OPT_LIST) {
    if (e->null || !e->nvals) return bad(c, e->line, "a list of values expected for", e->key);
    ((nmt_strlist *)o->dst)->n = 0; /* the file's list replaces a preset's */
    for (int i = 0; i < e->nvals; i++)
      if (nmt_cli_set(o, e->vals[i])) return at_line(c, e->line);
    return NMT_OK;
  }
  if (e->seq) return bad(c, e->line, "one value expected, not a list, for", e->key);
  if (o->kind == NMT_OPT_FLAG) {
    bool on;
    if (e->null || !yaml_bool(e->vals[0], &on)) return bad(c, e->line, "true or false expected for", e->key);
    const char *neg = on ? NULL : negation(e->key);
    const nmt_opt *off = neg ? nmt_cli_find(cli, neg) : NULL;
    if (on || off) *(bool *)(on ? o : off)->dst = true; /* false without a negation: the default */
    return NMT_OK;
  }
  if (e->null && !o->implicit) return bad(c, e->line, "a value expected for", e->key);
  return nmt_cli_set(o, e->null ? NULL : e->vals[0]) ? at_line(c, e->line) : NMT_OK;
}

int train_config_apply(const train_config *c, const nmt_cli *cli, const char *(*negation)(const char *flag)) {
  for (int i = 0; i < c->n; i++) {
    int st = apply_entry(c, &c->e[i], cli, negation);
    if (st) return st;
  }
  return NMT_OK;
}

bool train_config_sets(const train_config *c, const char *key) {
  for (int i = 0; i < c->n; i++)
    if (!strcmp(c->e[i].key, key)) return true;
  return false;
}

void train_config_free(train_config *c) {
  for (int i = 0; i < c->n; i++) {
    for (int k = 0; k < c->e[i].nvals; k++) free(c->e[i].vals[k]);
    free(c->e[i].vals);
    free(c->e[i].key);
  }
  free(c->e);
  *c = (train_config){0};
}

/* A string as YAML reads it back: single-quoted, quotes doubled. */
static int quoted(nmt_strbuf *b, const char *s) {
  int st = nmt_strbuf_addc(b, '\'');
  for (; *s && !st; s++) st = *s == '\'' ? nmt_strbuf_add(b, "''", 2) : nmt_strbuf_addc(b, *s);
  return st ? st : nmt_strbuf_addc(b, '\'');
}

/* The shortest of %.15g and %.17g that reads back as v. */
static int number(nmt_strbuf *b, double v) {
  char text[40];
  snprintf(text, sizeof text, "%.15g", v);
  if (strtod(text, NULL) != v) snprintf(text, sizeof text, "%.17g", v);
  return nmt_strbuf_add(b, text, strlen(text));
}

/* One "key: value" line. Rows without a value are left out: an unset name (the
 * family's default) and a number outside the row's bounds (--cpu-threads' 0: the cores). */
static int dump_row(nmt_strbuf *b, const nmt_opt *o, int flag) {
  const nmt_strlist *l = o->dst;
  const char *s = o->kind == NMT_OPT_STR ? *(const char *const *)o->dst : "";
  double v = o->kind == NMT_OPT_INT      ? (double)*(const long *)o->dst
             : o->kind == NMT_OPT_DOUBLE ? *(const double *)o->dst
                                         : 0;
  bool numeric = o->kind == NMT_OPT_INT || o->kind == NMT_OPT_DOUBLE;
  if ((o->kind == NMT_OPT_FLAG && flag < 0) || (o->kind == NMT_OPT_LIST && !l->n) || !s ||
      (numeric && !nmt_cli_in_bounds(o, v)))
    return NMT_OK;
  int st = nmt_strbuf_addf(b, "%s: ", o->lng);
  switch (o->kind) {
  case NMT_OPT_FLAG: st = st ? st : nmt_strbuf_addf(b, "%s", flag ? "true" : "false"); break;
  case NMT_OPT_INT: st = st ? st : nmt_strbuf_addf(b, "%ld", *(const long *)o->dst); break;
  case NMT_OPT_DOUBLE: st = st ? st : number(b, v); break;
  case NMT_OPT_STR: st = st ? st : quoted(b, s); break;
  case NMT_OPT_LIST:
    st = st ? st : nmt_strbuf_addc(b, '[');
    for (int i = 0; i < l->n && !st; i++)
      if (!(st = i ? nmt_strbuf_add(b, ", ", 2) : NMT_OK)) st = quoted(b, l->v[i]);
    st = st ? st : nmt_strbuf_addc(b, ']');
    break;
  }
  return st ? st : nmt_strbuf_addc(b, '\n');
}

int train_config_dump(nmt_strbuf *b, const nmt_cli *cli, int (*flag_value)(void *ctx, const nmt_opt *o),
                      void *ctx) {
  int st = nmt_strbuf_addf(b, "# " PROG " %s: the effective options (read back with -c)\n", NMT_VERSION);
  for (const nmt_opt *o = cli->opts; o->lng && !st; o++) {
    const nmt_opt *first = cli->opts;
    while (first->dst != o->dst) first++; /* an alias (--disp-freq) after its row: left out */
    if (first == o && strcmp(o->lng, "config") && strcmp(o->lng, "dump-config") && strcmp(o->lng, "preset"))
      st = dump_row(b, o, o->kind == NMT_OPT_FLAG ? flag_value(ctx, o) : 0);
  }
  return st;
}

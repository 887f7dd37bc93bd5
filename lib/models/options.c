/* The rows of models/options.def and what is done with them (see models/options.h). */
#include "models/options.h"
#include "base/err.h"
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The values of the NAME and FAMILY rows, the first what a model file without the key means. */
/* Indexed by enum nmt_enc_type, enum nn_attn_score then "none", enum nmt_cell. */
#define CELLS {"lstm", "gru", "atr", "sru", "srnmt", "rhn"}
static const char *const nmt_option_names_enc_cell[] = CELLS;
static const char *const nmt_option_names_dec_cell[] = CELLS;
static const char *const nmt_option_names_enc_type[] = {"unidirectional", "bidirectional", "bi-unidirectional"};
static const char *const nmt_option_names_attention[] = {"dot", "general", "mlp", "none"};
/* The FAMILY row's values: the family table's names (the first, luong, for NULL). */
static const char *const nmt_option_names_type[] = {
#define NMT_FAMILY(name, family) name,
#include "models/families.def"
#undef NMT_FAMILY
};

/* A row's default and list by kind: numbers for INT/BOOL/FLOAT/PROB, a name for the others. */
#define NMT_NUM_INT(d) (d)
#define NMT_NUM_BOOL(d) (d)
#define NMT_NUM_FLOAT(d) (d)
#define NMT_NUM_PROB(d) (d)
#define NMT_NUM_NAME(d) 0
#define NMT_NUM_FAMILY(d) 0
#define NMT_STR_INT(d) NULL
#define NMT_STR_BOOL(d) NULL
#define NMT_STR_FLOAT(d) NULL
#define NMT_STR_PROB(d) NULL
#define NMT_STR_NAME(d) d
#define NMT_STR_FAMILY(d) d
#define NMT_LIST_INT(f) NULL, 0
#define NMT_LIST_BOOL(f) NULL, 0
#define NMT_LIST_FLOAT(f) NULL, 0
#define NMT_LIST_PROB(f) NULL, 0
#define NMT_LIST_NAME(f) nmt_option_names_##f, sizeof nmt_option_names_##f / sizeof *nmt_option_names_##f
#define NMT_LIST_FAMILY(f) NMT_LIST_NAME(f)

const nmt_option nmt_options[] = {
#define NMT_OPTION(field, key, flag, neg, kind, dflt, lo, hi, fams, help)                                     \
  {key, flag, neg, NMT_KIND_##kind, offsetof(nmt_model_opts, field), NMT_NUM_##kind(dflt), NMT_STR_##kind(dflt), \
   lo, hi, fams, help, NMT_LIST_##kind(field)},
#include "models/options.def"
#undef NMT_OPTION
};
const int nmt_noptions = sizeof nmt_options / sizeof nmt_options[0];


void nmt_model_opts_defaults(nmt_model_opts *o) {
  memset(o, 0, sizeof *o);
  for (int i = 0; i < nmt_noptions; i++) {
    const nmt_option *r = &nmt_options[i];
    void *f = (char *)o + r->off;
    switch (r->kind) {
    case NMT_KIND_INT: *(int *)f = (int)r->dflt; break;
    case NMT_KIND_BOOL: *(bool *)f = r->dflt != 0; break;
    case NMT_KIND_FLOAT:
    case NMT_KIND_PROB: *(float *)f = (float)r->dflt; break;
    case NMT_KIND_NAME:
    case NMT_KIND_FAMILY: *(const char **)f = r->dflt_name; break;
    }
  }
}

const nmt_option *nmt_option_by_key(const char *key) {
  for (int i = 0; i < nmt_noptions; i++)
    if (!strcmp(nmt_options[i].key, key)) return &nmt_options[i];
  return NULL;
}

void nmt_option_text(const nmt_option *r, const nmt_model_opts *o, char *out, size_t n) {
  const void *f = (const char *)o + r->off;
  const char *name = r->kind == NMT_KIND_NAME || r->kind == NMT_KIND_FAMILY ? *(const char *const *)f : NULL;
  switch (r->kind) {
  case NMT_KIND_INT: snprintf(out, n, "%d", *(const int *)f); break;
  case NMT_KIND_BOOL: snprintf(out, n, "%d", *(const bool *)f); break;
  case NMT_KIND_FLOAT:
  case NMT_KIND_PROB: snprintf(out, n, "%.9g", (double)*(const float *)f); break;
  case NMT_KIND_NAME:
  case NMT_KIND_FAMILY: snprintf(out, n, "%s", name ? name : r->names[0]); break;
  }
}

/* Numbers from a file must fit their field: converting a double outside the
 * range of int or float is undefined, and a NaN passes every range check. */
static bool int_value(double x) { return x >= INT_MIN && x <= INT_MAX && x == floor(x); }
static bool float_value(double x) { return fabs(x) <= FLT_MAX; }

int nmt_option_read(const nmt_option *r, nmt_model_opts *o, const char *text) {
  void *f = (char *)o + r->off;
  if (r->kind == NMT_KIND_NAME || r->kind == NMT_KIND_FAMILY) {
    for (int j = 0; j < r->nnames; j++)
      if (!strcmp(text, r->names[j])) return *(const char **)f = r->names[j], 0;
    return -1;
  }
  char *end;
  double x = strtod(text, &end);
  if (!*text || *end || (r->kind == NMT_KIND_INT && !int_value(x)) || !float_value(x)) return -1;
  if (r->kind == NMT_KIND_INT) *(int *)f = (int)x;
  else if (r->kind == NMT_KIND_BOOL) *(bool *)f = x != 0;
  else *(float *)f = (float)x;
  return 0;
}

bool nmt_option_is_set(const nmt_option *r, const nmt_model_opts *o) {
  const void *f = (const char *)o + r->off;
  switch (r->kind) {
  case NMT_KIND_INT: return *(const int *)f > r->dflt; /* a depth of 0 counts as 1 */
  case NMT_KIND_BOOL: return *(const bool *)f != (r->dflt != 0);
  case NMT_KIND_FLOAT:
  case NMT_KIND_PROB: return *(const float *)f > r->dflt;
  default: return *(const char *const *)f != NULL;
  }
}

/* Whether `name` is a word of the space-separated list. */
static bool listed(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ')) return true;
  return false;
}

int nmt_model_opts_check_family(const nmt_model_opts *o, const char *family) {
  for (int i = 0; i < nmt_noptions; i++) {
    const nmt_option *r = &nmt_options[i];
    if (r->families && nmt_option_is_set(r, o) && !listed(r->families, family))
      return nmt_fail(NMT_EUSAGE, "--type %s does not use --%s", family, r->flag);
  }
  return NMT_OK;
}

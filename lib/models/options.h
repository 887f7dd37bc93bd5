/* The model options of models/options.def as C: the nmt_model_opts struct, and
 * one row per option for the code that reads, writes, checks or parses them. */
#ifndef NMT_MODELS_OPTIONS_H
#define NMT_MODELS_OPTIONS_H
#include <stdbool.h>
#include <stddef.h>

#define NMT_CTYPE_INT int
#define NMT_CTYPE_BOOL bool
#define NMT_CTYPE_FLOAT float
#define NMT_CTYPE_PROB float
#define NMT_CTYPE_NAME const char *
#define NMT_CTYPE_FAMILY const char *

/* What a model is created with. Names point to static strings (the rows' lists,
 * the family table, or argv); NULL is the family's choice (type: luong). */
typedef struct {
#define NMT_OPTION(field, key, flag, neg, kind, dflt, min, max, families, help) NMT_CTYPE_##kind field;
#include "models/options.def"
#undef NMT_OPTION
} nmt_model_opts;

/* How many rows there are. */
enum {
  NMT_NOPTIONS = 0
#define NMT_OPTION(field, key, flag, neg, kind, dflt, min, max, families, help) +1
#include "models/options.def"
#undef NMT_OPTION
};

enum nmt_option_kind { NMT_KIND_INT, NMT_KIND_BOOL, NMT_KIND_FLOAT, NMT_KIND_PROB, NMT_KIND_NAME, NMT_KIND_FAMILY };

typedef struct {
  const char *key;       /* in the model file's config section */
  const char *flag;      /* nmt-train's --flag */
  const char *neg;       /* BOOL: the flag that turns it off; NULL: "no-" and the flag */
  enum nmt_option_kind kind;
  size_t off;            /* of the field in nmt_model_opts */
  double dflt;           /* INT, BOOL, FLOAT, PROB */
  const char *dflt_name; /* NAME, FAMILY */
  double min, max;       /* INT, FLOAT, PROB (below max) */
  const char *families;  /* the --type names that accept a value other than the default; NULL: all */
  const char *help;
  const char *const *names; /* NAME, FAMILY: the values; the first is what a file without the key means */
  int nnames;
} nmt_option;

extern const nmt_option nmt_options[];
extern const int nmt_noptions;

/* Every option at its default. */
void nmt_model_opts_defaults(nmt_model_opts *o);
/* The row of a config key, or NULL. */
const nmt_option *nmt_option_by_key(const char *key);
/* The value as the model file writes it: "1", "0.5", "general" (a NULL name: the
 * list's first; a NULL family: luong). */
void nmt_option_text(const nmt_option *r, const nmt_model_opts *o, char *out, size_t n);
/* Read the model file's text into o: 0, or -1 when it is not a value of the row. */
int nmt_option_read(const nmt_option *r, nmt_model_opts *o, const char *text);
/* Whether o sets r to other than its default (the family check's question). */
bool nmt_option_is_set(const nmt_option *r, const nmt_model_opts *o);
/* NMT_OK, or NMT_EUSAGE "--type F does not use --flag" naming the first option
 * that o sets and family F does not accept. */
int nmt_model_opts_check_family(const nmt_model_opts *o, const char *family);

#endif

/* The model file's "origin" section: which nmt made it (the version and the
 * build's git commit, NMT_COMMIT from the Makefile) and the command line, each
 * argument quoted as a shell would need it, so the run can be repeated. */
#include "base/err.h"
#include "train_tool.h"
#include <string.h>

#ifndef NMT_COMMIT
#define NMT_COMMIT "unknown" /* built outside the Makefile */
#endif

static int add(nmt_strbuf *b, const char *s) { return nmt_strbuf_add(b, s, strlen(s)); }

/* One argument, in single quotes unless it is made of characters a shell leaves alone. */
static int shell_word(nmt_strbuf *b, const char *a) {
  static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-@%";
  if (*a && strspn(a, plain) == strlen(a)) return add(b, a);
  int st = nmt_strbuf_addc(b, '\'');
  for (; *a && !st; a++) st = *a == '\'' ? add(b, "'\\''") : *a == '\n' ? add(b, "'$'\\n''") : nmt_strbuf_addc(b, *a);
  return st ? st : nmt_strbuf_addc(b, '\'');
}

int train_origin(const train_args *a, nmt_strbuf *out) {
  int st = add(out, "version=" NMT_VERSION "\ncommit=" NMT_COMMIT "\ncommand=");
  for (int i = 0; i < a->argc && !st; i++)
    if (!(st = i ? nmt_strbuf_addc(out, ' ') : NMT_OK)) st = shell_word(out, a->argv[i]);
  return st ? st : nmt_strbuf_addc(out, '\n');
}

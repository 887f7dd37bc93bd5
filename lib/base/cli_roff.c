/* Text escaped for roff (groff_man(7)); see base/cli_doc.h. */
#include "base/cli_doc.h"
#include <string.h>

/* One UTF-8 sequence at s as \[uXXXX] (groff's name for a Unicode character, so the page
 * reads the same whatever the locale); returns the bytes it took. A byte that starts no
 * valid sequence is written as '?'. */
static int put_utf8(FILE *f, const unsigned char *s) {
  int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 1;
  unsigned cp = n == 1 ? 0 : s[0] & (0x7f >> n);
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) n = 1;
    else cp = cp << 6 | (s[i] & 0x3f);
  }
  if (n == 1) fputc('?', f);
  else fprintf(f, "\\[u%04X]", cp);
  return n;
}

/* One character of text; at_start: the first of an output line, where a dot or a quote
 * would start a request. */
static int put_char(FILE *f, const char *s, bool at_start) {
  unsigned char c = (unsigned char)*s;
  if (at_start && (c == '.' || c == '\'')) fputs("\\&", f);
  if (c >= 0x80) return put_utf8(f, (const unsigned char *)s);
  switch (c) {
  case '\\': fputs("\\e", f); break;
  case '-': fputs("\\-", f); break;   /* a minus: options and commands copy and paste */
  case '\'': fputs("\\(aq", f); break; /* a straight quote, not a typographic one */
  case '`': fputs("\\(ga", f); break;
  case '\t': fputc(' ', f); break;
  case ',': fputs(s[1] && s[1] != ' ' && s[1] != '\n' ? ",\\:" : ",", f); break; /* "a,b,c" may break */
  default: fputc(c, f);
  }
  return 1;
}

/* A line break in --help's text: indented past a few spaces it continues the line above
 * (help wrapped to --help's column) and folds into one space; indented a little (a list's
 * entry, "  peer   --enc-type ...") it starts a line of its own, its indentation kept. */
static const char *line_break(FILE *f, const char *s) {
  const char *next = s + strspn(s, " \n");
  size_t indent = strspn(s + 1, " ");
  if (*s == '\n' && indent >= 1 && indent <= 8 && s[1 + indent] && s[1 + indent] != '\n') {
    fputs("\n.br\n", f);
    for (size_t i = 0; i < indent; i++) fputs("\\ ", f);
    return s + 1 + indent;
  }
  if (*next) fputc(' ', f);
  return next;
}

void nmt_roff_put(FILE *f, const char *s, bool line_start) {
  bool start = line_start;
  if (line_start) s += strspn(s, " \n");
  while (*s) {
    if (*s == '\n' || (*s == ' ' && s[1] == '\n')) {
      s = line_break(f, s + strspn(s, " "));
      start = false;
      continue;
    }
    s += put_char(f, s, start);
    start = false;
  }
}

void nmt_roff_lines(FILE *f, const char *s, int drop) {
  fputs(".nf\n", f);
  while (*s) {
    for (int i = 0; i < drop && *s == ' '; i++) s++;
    const char *end = strchr(s, '\n');
    if (!end) end = s + strlen(s);
    for (bool start = true; s < end; start = false) s += put_char(f, s, start);
    fputc('\n', f);
    if (*s) s++;
  }
  fputs(".fi\n", f);
}

/* libexttextcat wrapper. fpdb.conf lines are "file.lm  name" with names like
 * "fr--utf8" or "zh-CN-utf8"; a language subset is a filtered copy of it. */
#include "text/langid.h"
#include "base/err.h"
#include "io/io.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <textcat.h>
#include <unistd.h>

#define DEFAULT_DIR "/usr/share/libexttextcat"

struct nmt_langid {
  void *tc;
  candidate_t *cand;
};

/* "fr--utf8" names language "fr"; "zh-CN-utf8" names "zh" and "zh-CN". */
static bool names(const char *name, size_t n, const char *lang, size_t k) {
  return k <= n && !strncmp(name, lang, k) && (k == n || name[k] == '-');
}

/* Write to f the conf lines of the listed languages with full paths; check
 * every listed code has a fingerprint. */
static int filter_conf(const char *conf, const char *dir, const char *langs, FILE *f) {
  char *text;
  size_t len;
  if (nmt_read_file(conf, &text, &len)) return NMT_EIO;
  char *seen = calloc(strlen(langs) + 1, 1); /* seen[i]: the code starting at langs[i] matched */
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    char file[512], name[128];
    if (line[0] == '#' || sscanf(line, "%511s %127s", file, name) != 2) continue;
    bool keep = false;
    for (const char *p = langs; *p;) {
      size_t k = strcspn(p, ",");
      if (k && names(name, strlen(name), p, k)) { seen[p - langs] = 1; keep = true; }
      p += k + (p[k] == ',');
    }
    if (keep) fprintf(f, "%s/%s %s\n", dir, file, name);
  }
  int st = NMT_OK;
  for (const char *p = langs; *p && !st;) {
    size_t k = strcspn(p, ",");
    if (k && !seen[p - langs]) st = nmt_fail(NMT_EUSAGE, "language '%.*s' is not in %s", (int)k, p, conf);
    p += k + (p[k] == ',');
  }
  free(seen);
  free(text);
  return st;
}

int nmt_langid_open(nmt_langid **out, const char *dir, const char *langs) {
  if (!dir) dir = DEFAULT_DIR;
  char conf[4096];
  snprintf(conf, sizeof conf, "%s/fpdb.conf", dir);
  void *tc = NULL;
  if (!langs || !strcmp(langs, "all")) {
    char prefix[4096];
    snprintf(prefix, sizeof prefix, "%s/", dir);
    tc = special_textcat_Init(conf, prefix);
  } else {
    char tmp[] = "/tmp/nmt-langid-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) return nmt_fail_errno(NMT_EIO, "cannot create a temp file for the language list");
    FILE *f = fdopen(fd, "w");
    int st = filter_conf(conf, dir, langs, f);
    fclose(f);
    if (!st) tc = special_textcat_Init(tmp, "");
    unlink(tmp);
    if (st) return st;
  }
  if (!tc) return nmt_fail(NMT_EIO, "%s: cannot load the textcat language fingerprints", conf);
  nmt_langid *l = calloc(1, sizeof *l);
  if (!l) { textcat_Done(tc); return nmt_fail(NMT_EIO, "out of memory"); }
  l->tc = tc;
  l->cand = textcat_GetClassifyFullOutput(tc);
  *out = l;
  return NMT_OK;
}

int nmt_langid_check(nmt_langid *l, const char *text, size_t n, const char *lang) {
  int k = textcat_ClassifyFull(l->tc, text, n, l->cand);
  if (k <= 0) return NMT_LANGID_UNSURE; /* TEXTCAT_RESULT_SHORT or _UNKNOWN */
  for (int i = 0; i < k; i++)
    if (names(l->cand[i].name, strlen(l->cand[i].name), lang, strlen(lang))) return NMT_LANGID_YES;
  return NMT_LANGID_NO;
}

void nmt_langid_close(nmt_langid *l) {
  if (!l) return;
  textcat_ReleaseClassifyFullOutput(l->tc, l->cand);
  textcat_Done(l->tc);
  free(l);
}

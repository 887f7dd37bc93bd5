/* Output formatting compatible with sacreBLEU 2.6.0 (see report.h). */
#include "report.h"
#include <stdlib.h>
#include <string.h>

void py_repr(double x, char *buf, size_t n) {
  char e[40];
  int p;
  for (p = 1; p <= 17; p++) { /* shortest round-trip digits */
    snprintf(e, sizeof e, "%.*e", p - 1, x);
    if (strtod(e, NULL) == x) break;
  }
  char digits[24];
  int nd = 0, neg = e[0] == '-';
  for (const char *c = e + neg; *c && *c != 'e'; c++)
    if (*c >= '0' && *c <= '9') digits[nd++] = *c;
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  digits[nd] = 0;
  int exp10 = atoi(strchr(e, 'e') + 1);
  char *o = buf;
  size_t left = n;
#define OUT(...) do { int k_ = snprintf(o, left, __VA_ARGS__); o += k_; left -= (size_t)k_; } while (0)
  if (neg) OUT("-");
  if (exp10 >= -5 + 1 && exp10 < 16) {
    if (exp10 < 0) {
      OUT("0.");
      for (int i = -1; i > exp10; i--) OUT("0");
      OUT("%s", digits);
    } else {
      for (int i = 0; i <= exp10; i++) OUT("%c", i < nd ? digits[i] : '0');
      OUT(".");
      if (nd > exp10 + 1) OUT("%s", digits + exp10 + 1);
      else OUT("0");
    }
  } else {
    OUT("%c", digits[0]);
    if (nd > 1) OUT(".%s", digits + 1);
    OUT("e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
  }
#undef OUT
}

void bleu_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c == '\r') fputs("\\r", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* Rounded like f"{x:.{w}f}" then parsed back, as sacreBLEU's JSON numbers. */
static void json_number(FILE *f, double x, int width) {
  char s[64], r[64];
  snprintf(s, sizeof s, "%.*f", width, x);
  py_repr(strtod(s, NULL), r, sizeof r);
  fputs(r, f);
}

void format_result(const result *r, int width, bool score_only, bool json, char **out) {
  char sc[256];
  int k = snprintf(sc, sizeof sc, "%.*f", width, r->score);
  if (r->has_ci && r->mean > 0) snprintf(sc + k, sizeof sc - (size_t)k, " (μ = %.*f ± %.*f)", width, r->mean, width, r->ci);
  char *buf;
  size_t len;
  FILE *f = open_memstream(&buf, &len);
  if (score_only) {
    fprintf(f, "%.*f", width, r->score);
  } else if (!json) {
    fprintf(f, "%s|%s = %s", r->name, r->signature, sc);
    if (r->verbose[0]) fprintf(f, " %s", r->verbose);
  } else {
    fputs("{\n \"name\": ", f);
    bleu_json_string(f, r->name);
    fputs(",\n \"score\": ", f);
    json_number(f, r->score, width);
    fputs(",\n \"signature\": ", f);
    bleu_json_string(f, r->signature);
    if (r->has_ci && r->mean > 0) {
      fputs(",\n \"confidence_mean\": ", f);
      json_number(f, r->mean, width);
      fputs(",\n \"confidence_var\": ", f);
      json_number(f, r->ci, width);
      fputs(",\n \"confidence\": ", f);
      char conf[128];
      snprintf(conf, sizeof conf, "μ = %.*f ± %.*f", width, r->mean, width, r->ci);
      bleu_json_string(f, conf);
    }
    if (r->verbose[0]) { fputs(",\n \"verbose_score\": ", f); bleu_json_string(f, r->verbose); }
    /* every key:value of the signature */
    const char *p = r->signature;
    while (*p) {
      const char *bar = strchr(p, '|'), *end = bar ? bar : p + strlen(p), *colon = memchr(p, ':', (size_t)(end - p));
      if (colon) fprintf(f, ",\n \"%.*s\": \"%.*s\"", (int)(colon - p), p, (int)(end - colon - 1), colon + 1);
      p = bar ? bar + 1 : end;
    }
    fputs("\n}", f);
  }
  fclose(f);
  *out = buf;
}

void print_results(FILE *f, char **lines, int n, bool json) {
  if (json && n > 1) {
    fputs("[\n", f);
    for (int i = 0; i < n; i++) fprintf(f, "%s%s", lines[i], i + 1 < n ? ",\n" : "\n");
    fputs("]\n", f);
  } else if (json || n == 1) {
    for (int i = 0; i < n; i++) fprintf(f, "%s\n", lines[i]);
  } else {
    /* align on the first '=' (lines without one are printed as they are) */
    int w = 0;
    for (int i = 0; i < n; i++) {
      char *eq = strchr(lines[i], '=');
      if (eq && eq - lines[i] - 1 > w) w = (int)(eq - lines[i] - 1);
    }
    for (int i = 0; i < n; i++) {
      char *eq = strchr(lines[i], '=');
      if (!eq) { fprintf(f, "%s\n", lines[i]); continue; }
      int l = (int)(eq - lines[i] - 1);
      fprintf(f, "%*s%.*s%s\n", w - l, "", l, lines[i], lines[i] + l);
    }
  }
  for (int i = 0; i < n; i++) free(lines[i]);
}

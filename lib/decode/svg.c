/* Attention heatmaps; see decode/svg.h. */
#include "decode/svg.h"
#include "base/err.h"
#include "base/utf8.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CELL = 24, CHAR_W = 8, PAD = 6 }; /* pixels: a cell, a label character (12px monospace) */

/* Whether XML 1.0 allows code point c in a document (its Char production). */
static bool xml_char(uint32_t c) {
  return c >= 0x20 ? (c < 0xD800 || c > 0xDFFF) && c != 0xFFFE && c != 0xFFFF : c == 0x9 || c == 0xA || c == 0xD;
}

/* Text with XML's five special characters escaped, and U+FFFD for what XML 1.0
 * forbids (C0 controls, U+FFFE, U+FFFF) or what is no UTF-8: the file stays XML
 * whatever the labels hold. */
static int add_text(nmt_strbuf *out, const char *t) {
  int st = NMT_OK;
  for (size_t n = strlen(t), i = 0; i < n && !st;) {
    uint32_t c;
    int len = nmt_utf8_decode(t + i, n - i, &c);
    const char *e = !len || !xml_char(c) ? "\xEF\xBF\xBD" : c == '&' ? "&amp;" : c == '<' ? "&lt;"
                  : c == '>' ? "&gt;" : c == '"' ? "&quot;" : c == '\'' ? "&apos;" : NULL;
    st = e ? nmt_strbuf_add(out, e, strlen(e)) : nmt_strbuf_add(out, t + i, (size_t)len);
    i += len ? (size_t)len : 1;
  }
  return st ? NMT_EIO : NMT_OK;
}

/* The widest label's width in pixels (characters, not bytes). */
static int label_width(const char *const *t, int n) {
  size_t widest = 0;
  for (int i = 0; i < n; i++) {
    size_t chars = 0;
    for (const char *c = t[i]; *c; c++) chars += ((unsigned char)*c & 0xC0) != 0x80;
    widest = chars > widest ? chars : widest;
  }
  return (int)widest * CHAR_W + 2 * PAD;
}

int nmt_attention_svg(nmt_strbuf *out, const char *const *src, int n_src, const char *const *tgt, int n_tgt,
                      const float *att) {
  int x0 = label_width(tgt, n_tgt), y0 = label_width(src, n_src), W = x0 + n_src * CELL + PAD,
      H = y0 + n_tgt * CELL + PAD;
  int st = nmt_strbuf_addf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                    "font-family=\"monospace\" font-size=\"12\">\n"
                    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H, W, H);
  for (int s = 0; s < n_src && !st; s++) { /* source labels, read bottom to top, ending at the grid */
    st = nmt_strbuf_addf(out, "<text transform=\"translate(%d,%d) rotate(-90)\">", x0 + s * CELL + CELL / 2 + 4, y0 - PAD);
    if (!st) st = add_text(out, src[s]);
    if (!st) st = nmt_strbuf_addf(out, "</text>\n");
  }
  for (int t = 0; t < n_tgt && !st; t++) {
    st = nmt_strbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", x0 - PAD, y0 + t * CELL + CELL / 2 + 4);
    if (!st) st = add_text(out, tgt[t]);
    if (!st) st = nmt_strbuf_addf(out, "</text>\n");
    for (int s = 0; s < n_src && !st; s++) {
      float w = att[(size_t)t * n_src + s];
      w = w < 0 ? 0 : w > 1 ? 1 : w;
      st = nmt_strbuf_addf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"black\" fill-opacity=\"%.3f\" "
                    "stroke=\"#ccc\"><title>%.4f</title></rect>\n",
               x0 + s * CELL, y0 + t * CELL, CELL, CELL, (double)w, (double)w);
    }
  }
  if (!st) st = nmt_strbuf_addf(out, "</svg>\n");
  return st ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

int nmt_attention_svg_ids(nmt_strbuf *out, const char *src_toks, size_t len, int src_n, const nmt_vocab *v,
                          const int *ids, int n, const float *att) {
  nmt_tokens src = {0};
  char *line = malloc(len + 1);
  const char **cols = malloc(sizeof *cols * (size_t)(src_n + 1)), **rows = malloc(sizeof *rows * (size_t)(n + 1));
  int st = line && cols && rows ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
  if (!st) memcpy(line, src_toks ? src_toks : "", len), line[len] = '\0';
  if (!st) st = nmt_tokens_split(&src, line, len);
  for (int i = 0; !st && i < src.count; i++) line[src.s[i] - line + src.n[i]] = '\0'; /* labels end there */
  for (int i = 0; !st && i < src_n; i++) cols[i] = i < src.count ? src.s[i] : "";
  if (!st) cols[src_n] = "</s>";
  for (int t = 0; !st && t < n; t++) rows[t] = nmt_vocab_token(v, ids[t]);
  if (!st) st = nmt_attention_svg(out, cols, src_n + 1, rows, n, att);
  nmt_tokens_free(&src);
  free(line), free(cols), free(rows);
  return st;
}

/* Attention heatmaps (decode/svg.h): one cell per pair with its weight, XML's
 * special characters escaped in the labels, weights outside [0, 1] clamped. */
#include "decode/svg.h"
#include "base/err.h"
#include "test.h"
#include <stdlib.h>
#include <string.h>

static int count(const char *s, const char *what) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, what)); p++) n++;
  return n;
}

TEST(decode_svg_cells_and_escapes) {
  const char *src[] = {"a&b", "<c>", "</s>"}, *tgt[] = {"\"q'", "é"};
  const float att[] = {0.25f, 0.5f, 0.25f, 1.5f, -1, 0};
  nmt_strbuf out = {0};
  CHECK_INT(nmt_attention_svg(&out, src, 3, tgt, 2, att), NMT_OK);
  CHECK(out.s && !strncmp(out.s, "<?xml", 5) && strstr(out.s, "</svg>\n"));
  CHECK_INT(count(out.s, "<rect x="), 6);
  CHECK(strstr(out.s, ">a&amp;b</text>") && strstr(out.s, ">&lt;c&gt;</text>") && strstr(out.s, ">&lt;/s&gt;</text>"));
  CHECK(strstr(out.s, ">&quot;q&apos;</text>") && strstr(out.s, ">é</text>"));
  CHECK(strstr(out.s, "fill-opacity=\"0.500\"") && strstr(out.s, "fill-opacity=\"1.000\""));
  CHECK_INT(count(out.s, "fill-opacity=\"0.000\""), 2);
  free(out.s);
}

/* What XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF) and what is no UTF-8 become
 * U+FFFD; tab, characters past U+FFFF and U+FFFD itself stay. */
TEST(decode_svg_forbidden_characters) {
  const char *src[] = {"a\xEF\xBF\xBE" "b", "\xEF\xBF\xBF", "\x01x\x1F", "\xFFz"}, *tgt[] = {"t\tu\xF0\x9F\x98\x80\xEF\xBF\xBD"};
  const float att[] = {0.25f, 0.25f, 0.25f, 0.25f};
  nmt_strbuf out = {0};
  CHECK_INT(nmt_attention_svg(&out, src, 4, tgt, 1, att), NMT_OK);
  CHECK(strstr(out.s, ">a\xEF\xBF\xBD" "b</text>") && strstr(out.s, ">\xEF\xBF\xBD</text>"));
  CHECK(strstr(out.s, ">\xEF\xBF\xBDx\xEF\xBF\xBD</text>") && strstr(out.s, ">\xEF\xBF\xBDz</text>"));
  CHECK(strstr(out.s, ">t\tu\xF0\x9F\x98\x80\xEF\xBF\xBD</text>"));
  free(out.s);
}

/* lib/base/utf8: validation, encoding and decoding. */
#include "base/utf8.h"
#include "test.h"
#include <stdint.h>

TEST(utf8_validation) {
  CHECK_INT(nmt_utf8_invalid("abc", 3), 3);
  CHECK_INT(nmt_utf8_invalid("caf\xc3\xa9 ok", 8), 8);
  CHECK_INT(nmt_utf8_invalid("ab\xc3", 3), 2);           /* truncated */
  CHECK_INT(nmt_utf8_invalid("a\xc0\xafz", 4), 1);       /* overlong */
  CHECK_INT(nmt_utf8_invalid("\xed\xa0\x80", 3), 0);     /* surrogate */
  CHECK_INT(nmt_utf8_invalid("12345678\xff", 9), 8);
  char buf[4];
  uint32_t cp;
  CHECK_INT(nmt_utf8_encode(0x1F600, buf), 4);
  CHECK_INT(nmt_utf8_decode(buf, 4, &cp), 4);
  CHECK_INT(cp, 0x1F600);
}

/* nmt_utf8_copy: what echoes a peer's bytes stays valid UTF-8 and is cut between characters. */
TEST(utf8_copy) {
  char out[8];
  CHECK_INT(nmt_utf8_copy(out, sizeof out, "a\xff" "b", 3), 5); /* the stray byte: U+FFFD */
  CHECK_STR(out, "a\xef\xbf\xbd" "b");
  CHECK_INT(nmt_utf8_copy(out, sizeof out, "abcdef\xc3\xa9", 8), 6); /* é would pass 7 bytes */
  CHECK_STR(out, "abcdef");
  CHECK_INT(nmt_utf8_copy(out, sizeof out, "\xc3", 1), 3); /* a cut sequence */
  CHECK_INT(nmt_utf8_invalid(out, 3), 3);
}

/* lib/base/err: the one-line message of the last failure. */
#include "base/err.h"
#include "test.h"

/* A message built from the previous one (source and target of the format overlap). */
TEST(err_message_from_previous) {
  nmt_fail(NMT_EIO, "x.txt: cannot open");
  nmt_fail(NMT_EIO, "reading the vocabulary: %s", nmt_errmsg());
  CHECK_STR(nmt_errmsg(), "reading the vocabulary: x.txt: cannot open");
}

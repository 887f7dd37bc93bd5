/* libFuzzer target: tensor streams, read record by record from memory, and
 * as id streams (nmt-train's fast input) under a fixed vocabulary through a
 * memory file. The seed was made with the same vocabulary (tests/fuzz/seeds.sh),
 * so mutations get past its vocabulary check. */
#include "fuzz_util.h"
#include "io/tstream.h"
#include "text/tstream_ids.h"
#include <stdlib.h>

static const char vocab_text[] = "<pad>\n<unk>\n<s>\n</s>\na\nb\n";

static void records(const uint8_t *data, size_t size) {
  nmt_ts_reader *r;
  nmt_ts_record rec;
  if (nmt_ts_reader_open_mem(&r, data, size, "fuzz")) return;
  while (nmt_ts_next(r, &rec) == 1) {
  }
  nmt_ts_reader_close(r);
}

static void ids(const uint8_t *data, size_t size) {
  static nmt_vocab *v;
  if (!v && nmt_vocab_parse(&v, vocab_text, sizeof vocab_text - 1, "vocab")) abort();
  nmt_id_reader *r;
  const int *id;
  int n;
  if (nmt_id_reader_open(&r, fuzz_memfile(data, size), v)) return;
  while (nmt_id_reader_next(r, &id, &n) == 1) {
  }
  nmt_id_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  records(data, size);
  ids(data, size);
  return 0;
}

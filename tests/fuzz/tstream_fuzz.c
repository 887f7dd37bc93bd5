/* libFuzzer target: the tensor stream reader on arbitrary bytes must return
 * records or an error, never crash, hang or leak (`make fuzz`, clang only). */
#include "tstream.h"
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nmt_ts_reader *r;
  nmt_ts_record rec;
  if (nmt_ts_reader_open_mem(&r, data, size, "fuzz")) return 0;
  while (nmt_ts_next(r, &rec) == 1) {
  }
  nmt_ts_reader_close(r);
  return 0;
}

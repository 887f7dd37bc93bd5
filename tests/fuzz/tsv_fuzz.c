/* libFuzzer target: TSV and CSV records (nmt-clean --tsv/--csv) through a
 * memory file; the first byte picks the format. Every field is read so the
 * sanitizers see the lengths the reader reports. */
#include "base/err.h"
#include "fuzz_util.h"
#include "io/tsv.h"
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size) return 0;
  nmt_tsv *t;
  if (nmt_tsv_open(&t, fuzz_memfile(data + 1, size - 1), data[0] & 1 ? NMT_CSV : NMT_TSV)) return 0;
  nmt_tsv_row row;
  volatile size_t sum = 0;
  while (nmt_tsv_next(t, &row) == 1)
    for (int i = 0; i < row.n; i++) sum += strlen(row.field[i]) + row.len[i];
  nmt_tsv_close(t);
  return 0;
}

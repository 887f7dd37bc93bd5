/* libFuzzer target: a model file (container, config, vocabularies, tensor
 * table, weights) as nmt-decode loads it; bad bytes give an error, never a
 * crash, hang or leak. The input is a file without its checksum (fuzz_util.h). */
#include "fuzz_util.h"
#include "models/model.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t len;
  char *bytes = fuzz_model_bytes(data, size, &len);
  nmt_model_file f;
  nmt_model m;
  if (!nmt_mf_read_mem(&f, bytes, len, "fuzz")) {
    if (!nmt_model_from_file(&m, &f, "fuzz", false)) nmt_model_free(&m);
    nmt_mf_free(&f);
  }
  free(bytes);
  return 0;
}

/* libFuzzer target: a training checkpoint (a model file plus Adam moments and
 * the training state) as nmt-train --resume loads it. The input is a file
 * without its checksum (fuzz_util.h), handed over as a memory file. */
#include "fuzz_util.h"
#include "train/checkpoint.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t len;
  char *bytes = fuzz_model_bytes(data, size, &len);
  nmt_model m;
  nmt_train_state s;
  if (!nmt_checkpoint_load(&m, &s, fuzz_memfile(bytes, len))) nmt_model_free(&m);
  free(bytes);
  return 0;
}

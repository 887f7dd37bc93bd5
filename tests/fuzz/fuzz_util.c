/* Helpers shared by the fuzz harnesses: see fuzz_util.h. */
#include "fuzz_util.h"
#include "io/model_file.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char *fuzz_memfile(const void *data, size_t len) {
  static int fd = -1;
  static char path[64];
  if (fd < 0) {
    fd = memfd_create("nmt-fuzz", 0);
    if (fd < 0) { perror("memfd_create"); abort(); }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  if (ftruncate(fd, 0) || (len && pwrite(fd, data, len, 0) != (ssize_t)len)) { perror("memfd"); abort(); }
  return path;
}

/* Offsets in the model file header (io/model_file.c): magic 8, version 4,
 * sections 4, then the total size. */
enum { TOTAL_AT = 16, HEADER = 24, SUM = 8 };

char *fuzz_model_bytes(const uint8_t *data, size_t len, size_t *out_len) {
  char *buf = malloc(len + SUM);
  if (!buf) abort();
  if (len) memcpy(buf, data, len);
  if (len >= HEADER) {
    uint64_t total = len + SUM;
    memcpy(buf + TOTAL_AT, &total, 8);
  }
  uint64_t sum = nmt_fnv1a(NMT_FNV_INIT, buf, len);
  memcpy(buf + len, &sum, SUM);
  *out_len = len + SUM;
  return buf;
}

/* Helpers shared by the fuzz harnesses (tests/fuzz/, `make fuzz`). */
#ifndef NMT_TESTS_FUZZ_FUZZ_UTIL_H
#define NMT_TESTS_FUZZ_FUZZ_UTIL_H
#include <stddef.h>
#include <stdint.h>

/* For parsers that only open a path: the bytes in an anonymous memory file
 * (memfd), reused across runs, so nothing is written to disk. Returns its
 * "/proc/self/fd/N" path (static storage); aborts when the memfd fails, as
 * the harness cannot run at all then. */
const char *fuzz_memfile(const void *data, size_t len);

/* A model file from a fuzz input: the input is the file without its last 8
 * bytes (the checksum); when it is long enough, the header's total size is
 * set to match, and the FNV-1a checksum is appended, so mutations reach the
 * section table and the sections instead of failing the checksum. The seeds
 * are real files with their checksum cut off. Returns a malloc'd buffer of
 * *out_len bytes. */
char *fuzz_model_bytes(const uint8_t *data, size_t len, size_t *out_len);

#endif

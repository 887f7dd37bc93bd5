/* CRC-32C: the SSE4.2 crc32 instruction where the CPU has it, else a table
 * eight bytes at a time ("slicing-by-8"); both give the same values. */
#include "io/crc32c.h"
#include <pthread.h>
#include <string.h>

#define POLY 0x82F63B78u /* 0x1EDC6F41 bit-reversed */

static uint32_t table[8][256];
static uint32_t (*update)(uint32_t c, const unsigned char *b, size_t n);
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static uint32_t update_table(uint32_t c, const unsigned char *b, size_t n) {
  for (; n >= 8; n -= 8, b += 8) {
    uint32_t lo, hi; /* little-endian host, as the file formats assume */
    memcpy(&lo, b, 4);
    memcpy(&hi, b + 4, 4);
    lo ^= c;
    c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
        table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^ table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
  }
  while (n--) c = (c >> 8) ^ table[0][(c ^ *b++) & 0xff];
  return c;
}

#if defined(__x86_64__)
#include <nmmintrin.h>
__attribute__((target("sse4.2"))) static uint32_t update_sse42(uint32_t c, const unsigned char *b, size_t n) {
  uint64_t c64 = c;
  for (; n >= 8; n -= 8, b += 8) {
    uint64_t x;
    memcpy(&x, b, 8);
    c64 = _mm_crc32_u64(c64, x);
  }
  c = (uint32_t)c64;
  while (n--) c = _mm_crc32_u8(c, *b++);
  return c;
}
#endif

static void init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
    table[0][i] = c;
  }
  /* table[k][i]: the CRC of byte i followed by k zero bytes */
  for (int k = 1; k < 8; k++)
    for (int i = 0; i < 256; i++) table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
  update = update_table;
#if defined(__x86_64__)
  if (__builtin_cpu_supports("sse4.2")) update = update_sse42;
#endif
}

uint32_t nmt_crc32c(uint32_t crc, const void *p, size_t n) {
  pthread_once(&init_once, init);
  return ~update(~crc, p, n);
}

uint32_t nmt_crc32c_portable(uint32_t crc, const void *p, size_t n) {
  pthread_once(&init_once, init);
  return ~update_table(~crc, p, n);
}

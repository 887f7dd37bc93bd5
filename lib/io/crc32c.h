/* CRC-32C (Castagnoli), the checksum of iSCSI, ext4 and Snappy frames: it
 * catches every burst error up to 32 bits, which a multiplicative hash does not. */
#ifndef NMT_IO_CRC32C_H
#define NMT_IO_CRC32C_H
#include <stddef.h>
#include <stdint.h>

/* The CRC of p[0..n) continued from crc (start with 0): crc32c(crc32c(0, a), b)
 * is the CRC of a followed by b. crc32c(0, "123456789", 9) == 0xE3069283. */
uint32_t nmt_crc32c(uint32_t crc, const void *p, size_t n);
/* The same without the CPU's crc32 instruction (tests compare the two). */
uint32_t nmt_crc32c_portable(uint32_t crc, const void *p, size_t n);

#endif

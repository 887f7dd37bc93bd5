/* String interning: each distinct byte string gets a dense id (0, 1, 2, ... in
 * order of first insertion), so callers keep per-string data in plain arrays
 * indexed by id. Open addressing with linear probing; strings live in an arena
 * and their pointers stay valid until nmt_strmap_free. */
#ifndef NMT_BASE_STRMAP_H
#define NMT_BASE_STRMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct nmt_strmap nmt_strmap;

nmt_strmap *nmt_strmap_new(void); /* NULL when out of memory */
void nmt_strmap_free(nmt_strmap *m);

/* Id of s[0..n), added when new; -1 when out of memory. */
int32_t nmt_strmap_intern(nmt_strmap *m, const char *s, size_t n);
/* Id of s[0..n), or -1 when absent. */
int32_t nmt_strmap_find(const nmt_strmap *m, const char *s, size_t n);
int32_t nmt_strmap_size(const nmt_strmap *m);
/* The string of an id (NUL-terminated) and its length. */
const char *nmt_strmap_str(const nmt_strmap *m, int32_t id);
size_t nmt_strmap_len(const nmt_strmap *m, int32_t id);

/* A fast 64-bit hash of bytes (not cryptographic). */
uint64_t nmt_hash(const void *p, size_t n);

#endif

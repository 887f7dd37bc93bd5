/* nmt-serve's API keys (--api-keys FILE, --rate-limit N/min): the keys a translation must
 * carry, read from a file of one key a line (blank lines and lines starting with '#' are
 * skipped; spaces around a key are not part of it), read again by serve_keys_reload
 * (SIGHUP). A key is compared in constant time: its SHA-256 against every key's, each
 * compared whole, so neither the time nor the order tells how much of a key was right.
 * With a rate, each key has a bucket of N requests that refills at N a minute. Any thread
 * may call any function (one lock). */
#ifndef NMT_TOOLS_SERVE_API_KEYS_H
#define NMT_TOOLS_SERVE_API_KEYS_H
#include <stddef.h>

typedef struct serve_keys serve_keys;

/* The keys of path; per_min > 0: each key's requests a minute. NMT_OK, or NMT_EIO
 * (message set) when the file cannot be read or holds no key. */
int serve_keys_open(serve_keys **k, const char *path, double per_min);
/* Read the file again; NMT_EIO (message set) when it cannot be, or holds no key: the
 * old keys stay. A key kept keeps its bucket. */
int serve_keys_reload(serve_keys *k);
/* key (n bytes; NULL: none given): 0 when it is one of the keys and within its rate, 401
 * when none was given, 403 when it is not one of the keys, 429 past its rate (then
 * *retry_after: whole seconds until the next request may pass). */
int serve_keys_check(serve_keys *k, const char *key, size_t n, int *retry_after);
/* The keys read: for the start-up line. */
int serve_keys_count(serve_keys *k);
void serve_keys_free(serve_keys *k);
/* "N/min" (N > 0, fractions allowed): N, or -1. */
double serve_keys_rate(const char *s);

#endif

/* The model file container (docs/formats.md): a magic, a format version, the
 * total size, named sections of bytes, and a 64-bit FNV-1a checksum over
 * everything before it. Models and checkpoints are sets of sections; readers
 * tell a file from a newer version, a truncated file and a corrupted one apart,
 * each a one-line NMT_EINPUT error naming the file. */
#ifndef NMT_IO_MODEL_FILE_H
#define NMT_IO_MODEL_FILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { NMT_MF_VERSION = 1, NMT_MF_TAG = 8 };

typedef struct {
  char tag[NMT_MF_TAG + 1]; /* e.g. "config", "weights"; at most 8 bytes */
  const void *data;         /* borrowed (writing) or inside the file buffer (reading) */
  size_t len;
} nmt_section;

typedef struct {
  nmt_section *s;
  int n, cap;
  char *buf; /* the file's bytes once read */
  size_t size;
} nmt_model_file;

/* Add a section (data is borrowed until write). NMT_OK, NMT_EUSAGE (bad tag) or NMT_EIO. */
int nmt_mf_add(nmt_model_file *f, const char *tag, const void *data, size_t len);
/* Write all sections with nmt_writer_open's rules (docs/outputs.md), durably: a
 * regular file (or a link's target) is replaced by a temp file beside it, fsync'ed,
 * renamed over it, and its folder fsync'ed, so it holds the previous file until
 * the new one is on disk; a FIFO or device is written in place; "-": stdout.
 * NMT_OK, NMT_EUSAGE (the output already open) or NMT_EIO. */
int nmt_mf_write(const nmt_model_file *f, const char *path);
/* nmt_mf_write, calling before(ctx, i) just before section i's data is
 * written: it may fill the memory the section borrows (one buffer reused for
 * several sections, each gathered from other processes in its turn) or fail. */
int nmt_mf_write_filled(const nmt_model_file *f, const char *path, int (*before)(void *ctx, int i), void *ctx);
/* Read and check a file: NMT_EIO when it cannot be read, NMT_EINPUT
 * "PATH: not an nmt model file", "...: format version N is newer...",
 * "PATH: truncated", "PATH: checksum mismatch". */
int nmt_mf_read(nmt_model_file *f, const char *path);
/* The same over a copy of len bytes in memory; `name` is used in messages. */
int nmt_mf_read_mem(nmt_model_file *f, const void *data, size_t len, const char *name);
/* Whether data[0..len) starts as a model file does (its magic). */
bool nmt_mf_sniff(const void *data, size_t len);
/* The section called tag, or NULL. */
const nmt_section *nmt_mf_get(const nmt_model_file *f, const char *tag);
void nmt_mf_free(nmt_model_file *f);

/* 64-bit FNV-1a, continued from h (start with NMT_FNV_INIT). */
#define NMT_FNV_INIT 0xcbf29ce484222325ull
uint64_t nmt_fnv1a(uint64_t h, const void *p, size_t n);

#endif

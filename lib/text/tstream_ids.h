/* Id streams: sentences as token ids in a tensor stream (io/tstream.h), the
 * fast training input `nmt-bpe apply --ids VOCAB` writes. Record 0, "vocab",
 * is u8 [8]: the 64-bit FNV-1a of the vocabulary's text form, so ids are
 * never read under another vocabulary; then one i32 [n] record per sentence,
 * unnamed, so record k is line k. */
#ifndef NMT_TEXT_TSTREAM_IDS_H
#define NMT_TEXT_TSTREAM_IDS_H
#include "io/tstream.h"
#include "text/segment.h"
#include "text/vocab.h"

/* Open a tensor stream writer and write the "vocab" record of v. */
int nmt_ids_writer_open(nmt_ts_writer **w, const char *path, int flags, const nmt_vocab *v);
/* One sentence: ids[0..n). */
int nmt_ids_write(nmt_ts_writer *w, const int *ids, int n);

/* Sentences of token ids under v from either kind of file: an id stream
 * (its vocabulary checked against v, every id in range) or BPE'd text
 * (UTF-8 checked, space-separated tokens looked up in v, unknown: <unk>). */
typedef struct nmt_id_reader nmt_id_reader;

int nmt_id_reader_open(nmt_id_reader **r, const char *path, const nmt_vocab *v);
/* Read text as raw: each line split by seg (SentencePiece) before the
 * lookup. An id stream is read as it is. */
void nmt_id_reader_segment(nmt_id_reader *r, const nmt_segmenter *seg);
/* 1 with ids[0..n) (valid until the next call), 0 at the end, -1 on error
 * (nmt_errcode(): NMT_EINPUT naming the file and line or record, NMT_EIO). */
int nmt_id_reader_next(nmt_id_reader *r, const int **ids, int *n);
const char *nmt_id_reader_name(const nmt_id_reader *r);
/* Sentences read so far. */
long nmt_id_reader_count(const nmt_id_reader *r);
void nmt_id_reader_close(nmt_id_reader *r);

#endif

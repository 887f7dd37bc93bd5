/* A SentencePiece model checked before libsentencepiece sees it (text/spm.cc
 * calls this first): the library trusts the file and reads wherever its
 * normalizer's trie points, so a damaged model would crash whoever encodes with
 * it. In-process and in C: no checker is forked from the threaded tools. */
#ifndef NMT_TEXT_SPM_CHECK_H
#define NMT_TEXT_SPM_CHECK_H
#include <stddef.h>

/* The matches the library keeps of one prefix search of the normalizer's trie
 * (Normalizer::kMaxTrieResultsSize): a path with more has it read past them. */
enum { NMT_SPM_MAX_MATCHES = 32 };

/* Whether bytes[0..len) is a serialized ModelProto (sentencepiece_model.proto)
 * the library can use safely: every field's length within its message, and each
 * normalizer's precompiled_charsmap a trie whose every reachable index lies
 * inside it, whose leaves point at NUL-terminated strings of its blob, with at
 * most NMT_SPM_MAX_MATCHES matches on a path and no cycle. NMT_OK, NMT_EINPUT
 * "NAME: not a SentencePiece model (WHY at byte N)", or NMT_EIO (out of memory). */
int nmt_spm_check(const void *bytes, size_t len, const char *name);

#endif

/* Unknown-word replacement (nmt-decode --replace-unk), after Luong et al.
 * 2015's PosUnk: each <unk> of a translation becomes the source word it
 * attended to most, or that word's translation in a dictionary. With subwords
 * the attended subword stands for its whole word: the pieces around it joined
 * by their "@@" marks ("New Y@@ or@@ k": any of the last three gives "York"). */
#ifndef NMT_DECODE_UNK_H
#define NMT_DECODE_UNK_H
#include "base/strbuf.h"
#include "text/vocab.h"

typedef struct nmt_unk_dict nmt_unk_dict;

/* A dictionary file (zstd or gzip allowed): one "SRC<TAB>TGT" a line, SRC one
 * source word (BPE joined, as the source text's tokens), TGT its translation
 * (one or more target tokens). The first entry of a word wins. NMT_EINPUT
 * naming file and line for a line of another shape or invalid UTF-8. */
int nmt_unk_dict_load(nmt_unk_dict **d, const char *path);
void nmt_unk_dict_free(nmt_unk_dict *d);

/* Append target ids[0..n) as tokens (space separated, unjoined) to out, each
 * <unk> at j replaced by the word of source token align[j] of src[0..src_len)
 * (the line's source tokens, as the model read them), or by its entry in dict
 * (NULL: none). */
int nmt_unk_replace(const nmt_vocab *tgt, const int *ids, int n, const int *align, const char *src, size_t src_len,
                    const nmt_unk_dict *dict, nmt_strbuf *out);

#endif

/* sacreBLEU's tokenizers: BLEU's 13a (mteval-v13a), intl (mteval-v14
 * international), none and char, and TER's tercom normaliser. Each writes the
 * tokenized line into `out`; tokens are then taken with nmt_py_split(). */
#ifndef NMT_METRICS_SACRE_TOK_H
#define NMT_METRICS_SACRE_TOK_H
#include <stdbool.h>
#include "metrics/sacre_text.h"

typedef struct nmt_tokenizer nmt_tokenizer;

/* name: "13a", "intl", "none" or "char". NMT_EUSAGE for another name. */
int nmt_tokenizer_new(nmt_tokenizer **t, const char *name);
const char *nmt_tokenizer_name(const nmt_tokenizer *t);
/* out = tokenized s[0..n). NMT_OK or NMT_EIO (out of memory). */
int nmt_tokenize(nmt_tokenizer *t, const char *s, size_t n, nmt_strbuf *out);
void nmt_tokenizer_free(nmt_tokenizer *t);

/* TER's TercomTokenizer options (sacreBLEU defaults: all false). */
typedef struct {
  bool normalized, no_punct, asian_support, case_sensitive;
} nmt_tercom_opts;

/* out = tercom-tokenized s[0..n); tmp is scratch space. NMT_OK or NMT_EIO. */
int nmt_tercom_tokenize(const nmt_tercom_opts *o, const char *s, size_t n, nmt_strbuf *out,
                        nmt_strbuf *tmp);

#endif

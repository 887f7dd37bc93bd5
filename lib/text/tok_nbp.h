/* Non-breaking prefixes: words that keep their final period before the next
 * token (tokenizer.perl's nonbreaking_prefix.<lang>). Lists are compiled in. */
#ifndef NMT_TEXT_TOK_NBP_H
#define NMT_TEXT_TOK_NBP_H
#include <stddef.h>

enum { TOK_NBP_NO = 0, TOK_NBP_ALWAYS = 1, TOK_NBP_NUMERIC = 2 };

typedef struct tok_nbp tok_nbp;

/* The list for `lang`; NULL when there is none (callers fall back to "en",
 * as Moses does). */
tok_nbp *tok_nbp_new(const char *lang);
void tok_nbp_free(tok_nbp *n);
/* TOK_NBP_NO, TOK_NBP_ALWAYS or TOK_NBP_NUMERIC (only before a number). */
int tok_nbp_get(const tok_nbp *n, const char *word, size_t len);

#endif

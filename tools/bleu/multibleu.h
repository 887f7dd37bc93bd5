/* Moses multi-bleu.perl: tokenized hypotheses against references named by a
 * stem (STEM, or STEM0, STEM1, ... plus STEM itself when it exists). */
#ifndef NMT_TOOLS_BLEU_MULTIBLEU_H
#define NMT_TOOLS_BLEU_MULTIBLEU_H
#include <stdbool.h>

/* Prints "BLEU = ..." to stdout. hyp NULL reads stdin. Returns an exit status. */
int multibleu_run(const char *const *stems, int nstems, const char *hyp, bool lowercase);

#endif

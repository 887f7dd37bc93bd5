/* A tiny SentencePiece model the SentencePiece tests share, trained in memory
 * on generated sentences. */
#ifndef NMT_TESTS_TEXT_SPM_CASE_H
#define NMT_TESTS_TEXT_SPM_CASE_H
#include "text/spm.h"

/* The generated sentence i (0 <= i < SPM_CASE_LINES), e.g. "kato sumi re". */
enum { SPM_CASE_LINES = 200 };
const char *spm_case_sentence(int i);
/* The model's bytes (malloc'd) with vocab_size pieces and model_type; NMT_OK
 * or the trainer's status. */
int spm_case_train(char **bytes, size_t *len, long vocab_size, const char *model_type);

#endif

/* The insides of a nmt_result: each sentence's hypotheses, best first. */
#ifndef NMT_API_RESULT_H
#define NMT_API_RESULT_H
#include <nmt.h>

typedef struct {
  int k;         /* hypotheses (0: an empty line) */
  char **text;   /* (k) */
  double *score; /* (k) */
} api_sent;

struct nmt_result {
  int n;
  api_sent *sent; /* (n) */
};

#endif

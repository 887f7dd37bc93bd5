/* The insides of a nmt_result: each sentence's hypotheses, best first. */
#ifndef NMT_API_RESULT_H
#define NMT_API_RESULT_H
#include <nmt.h>

typedef struct {
  int k;         /* hypotheses (0: an empty line) */
  char **text;   /* (k) */
  double *score; /* (k) */
  char **align;  /* (k) nmt_result_alignment's, or NULL without the option */
} api_sent;

struct nmt_result {
  int n;
  api_sent *sent; /* (n) */
};

#endif

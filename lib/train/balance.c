/* Parts of equal work; see train/balance.h. */
#include "train/balance.h"

/* The end of the longest part from pairs[from] whose work is at most `most`; one pair
 * at least, whatever its work. */
static int part_end(const nmt_corpus *c, const long *pairs, int from, int n, long most) {
  long src = 0, tgt = 0, words = 0;
  for (int i = from; i < n; i++) {
    long p = pairs[i], s = c->src_off[p + 1] - c->src_off[p] + 1, t = c->tgt_off[p + 1] - c->tgt_off[p] + 1;
    src = s > src ? s : src, tgt = t > tgt ? t : tgt, words += t;
    if (i > from && (i + 1 - from) * (src + tgt) + words > most) return i;
  }
  return n;
}

/* How many parts of at most `most` each the greedy cut needs. */
static int parts_needed(const nmt_corpus *c, const long *pairs, int n, long most) {
  int k = 0;
  for (int at = 0; at < n; k++) at = part_end(c, pairs, at, n, most);
  return k;
}

void nmt_balance_cut(const nmt_corpus *c, const long *pairs, int n, int parts, int *cut) {
  if (n <= parts) {
    for (int j = 0; j <= parts; j++) cut[j] = j < n ? j : n;
    return;
  }
  /* the least bound that `parts` greedy parts meet: the work of parts grows with their pairs */
  long lo = 0, hi = 1;
  while (parts_needed(c, pairs, n, hi) > parts) hi *= 2;
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (parts_needed(c, pairs, n, mid) <= parts) hi = mid;
    else lo = mid + 1;
  }
  /* greedy under it, leaving each later part a pair at least */
  cut[0] = 0;
  for (int j = 1; j < parts; j++) {
    int end = part_end(c, pairs, cut[j - 1], n, lo), last = n - (parts - j);
    cut[j] = end < last ? end : last;
  }
  cut[parts] = n;
}

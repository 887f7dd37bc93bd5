/* Lookups over the generated tables (lib/text/tok_unicode_data.c). */
#include "text/tok_unicode.h"
#include <pthread.h>

uint8_t tok_bmp_flags[0x10000];

static void fill_bmp(void) {
  for (int i = 0; i < tok_class_nranges && tok_class_ranges[i].lo < 0x10000; i++) {
    uint32_t hi = tok_class_ranges[i].hi < 0xFFFF ? tok_class_ranges[i].hi : 0xFFFF;
    for (uint32_t c = tok_class_ranges[i].lo; c <= hi; c++) tok_bmp_flags[c] = tok_class_ranges[i].flags;
  }
}

void tok_unicode_init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, fill_bmp);
}

int tok_flags_slow(uint32_t cp) {
  int lo = 0, hi = tok_class_nranges - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (cp < tok_class_ranges[mid].lo) hi = mid - 1;
    else if (cp > tok_class_ranges[mid].hi) lo = mid + 1;
    else return tok_class_ranges[mid].flags;
  }
  return 0;
}

int tok_lc(uint32_t cp, uint32_t out[2]) {
  if (cp < 0x80) {
    out[0] = cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
    return 1;
  }
  int lo = 0, hi = tok_lc_n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (cp < tok_lc_map[mid].cp) hi = mid - 1;
    else if (cp > tok_lc_map[mid].cp) lo = mid + 1;
    else {
      out[0] = tok_lc_map[mid].lc1;
      out[1] = tok_lc_map[mid].lc2;
      return out[1] ? 2 : 1;
    }
  }
  out[0] = cp;
  return 1;
}

/* Included after a file's other headers: GCC's -O2 vectorises only loops whose
 * trip count is a known multiple of the vector width, and the file's elementwise
 * loops run over any length (H, a row). clang's -O2 vectoriser handles any trip
 * count and does not know the pragma. */
#ifndef NMT_NN_VECTORISE_ANY_LENGTH_H
#define NMT_NN_VECTORISE_ANY_LENGTH_H
#ifndef __clang__
#pragma GCC optimize("vect-cost-model=dynamic")
#endif
#endif

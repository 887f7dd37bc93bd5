/* NN_COMPILE_FOR("avx2,fma") ... NN_COMPILE_END compiles the code between them
 * for an instruction set the build does not assume (its callers check the core
 * first). GCC reads its target pragma; clang, which `make fuzz` builds lib/
 * with, ignores that one and takes an attribute pushed onto every function
 * between the two instead. */
#ifndef NMT_NN_COMPILE_FOR_H
#define NMT_NN_COMPILE_FOR_H

#define NN_PRAGMA(x) _Pragma(#x)
#ifdef __clang__
#define NN_COMPILE_FOR(isa) NN_PRAGMA(clang attribute push(__attribute__((target(isa))), apply_to = function))
#define NN_COMPILE_END NN_PRAGMA(clang attribute pop)
#else
#define NN_COMPILE_FOR(isa) NN_PRAGMA(GCC push_options) NN_PRAGMA(GCC target(isa))
#define NN_COMPILE_END NN_PRAGMA(GCC pop_options)
#endif

#endif

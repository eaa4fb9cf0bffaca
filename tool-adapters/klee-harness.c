/*
 * Baton's KLEE harness for SV-COMP style C programs (reach-error property).
 *
 * Compiled to LLVM bitcode (clang -emit-llvm -c -g -O0 -finstrument-functions) and linked with
 * the program's bitcode:
 *   - __VERIFIER_nondet_<type>() returns a fresh symbolic value named "__VERIFIER_nondet_<type>"
 *     of that type's size in the task's data model (BATON_LONG_BYTES is 4 for ILP32, 8 for LP64;
 *     the bitcode itself is native 64-bit), so each .ktest object is one nondet call, in order;
 *   - __VERIFIER_assume(c) ends the path silently when c is false;
 *   - entering reach_error or __VERIFIER_error (defined by the program, possibly empty, or only
 *     declared) reports an error with suffix "reach_error.err" (test<N>.reach_error.err).
 * Every definition is weak: the program's own definitions win.
 * KLEE handles abort() itself (test<N>.abort.err); Baton reads that as a path that ended.
 */
#include <stddef.h>

void klee_make_symbolic(void *addr, size_t nbytes, const char *name);
void klee_silent_exit(int status) __attribute__((noreturn));
void klee_report_error(const char *file, int line, const char *message, const char *suffix)
    __attribute__((noreturn));

#ifndef BATON_LONG_BYTES
#define BATON_LONG_BYTES 8
#endif

#define BATON_HARNESS __attribute__((no_instrument_function))
#define BATON_WEAK __attribute__((weak, no_instrument_function))

#define BATON_NONDET(name, ctype, storage)                                                      \
  BATON_WEAK ctype __VERIFIER_nondet_##name(void) {                                             \
    storage v;                                                                                  \
    klee_make_symbolic(&v, sizeof v, "__VERIFIER_nondet_" #name);                               \
    return (ctype)v;                                                                            \
  }

#if BATON_LONG_BYTES == 4
#define BATON_LONG_STORAGE int
#define BATON_ULONG_STORAGE unsigned int
#else
#define BATON_LONG_STORAGE long
#define BATON_ULONG_STORAGE unsigned long
#endif

BATON_NONDET(char, char, char)
BATON_NONDET(schar, signed char, signed char)
BATON_NONDET(uchar, unsigned char, unsigned char)
BATON_NONDET(short, short, short)
BATON_NONDET(ushort, unsigned short, unsigned short)
BATON_NONDET(int, int, int)
BATON_NONDET(uint, unsigned int, unsigned int)
BATON_NONDET(unsigned, unsigned int, unsigned int)
BATON_NONDET(long, long, BATON_LONG_STORAGE)
BATON_NONDET(ulong, unsigned long, BATON_ULONG_STORAGE)
BATON_NONDET(longlong, long long, long long)
BATON_NONDET(ulonglong, unsigned long long, unsigned long long)
BATON_NONDET(size_t, unsigned long, BATON_ULONG_STORAGE)
BATON_NONDET(sizet, unsigned long, BATON_ULONG_STORAGE)

/* _Bool: one symbolic byte, lowest bit (the decoder does the same). */
BATON_WEAK _Bool __VERIFIER_nondet_bool(void) {
  unsigned char v;
  klee_make_symbolic(&v, sizeof v, "__VERIFIER_nondet_bool");
  return (_Bool)(v & 1U);
}

BATON_WEAK void __VERIFIER_assume(int cond) {
  if (!cond) {
    klee_silent_exit(0);
  }
}

BATON_HARNESS static void baton_error_reached(const char *name) {
  klee_report_error(__FILE__, __LINE__, name, "reach_error.err");
}

BATON_WEAK void reach_error(void) { baton_error_reached("reach_error reached"); }
BATON_WEAK void __VERIFIER_error(void) { baton_error_reached("__VERIFIER_error reached"); }

BATON_HARNESS void __cyg_profile_func_enter(void *this_fn, void *call_site) {
  (void)call_site;
  if (this_fn == (void *)&reach_error) {
    baton_error_reached("reach_error reached");
  }
  if (this_fn == (void *)&__VERIFIER_error) {
    baton_error_reached("__VERIFIER_error reached");
  }
}

BATON_HARNESS void __cyg_profile_func_exit(void *this_fn, void *call_site) {
  (void)this_fn;
  (void)call_site;
}

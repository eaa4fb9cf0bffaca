/*
 * Baton's AFL++ harness for SV-COMP style C programs (reach-error property).
 *
 * Linked together with the program under test, built with afl-clang-fast and
 * -finstrument-functions:
 *   - __VERIFIER_nondet_<type>() reads the little-endian bytes of that type's size (in the
 *     task's data model: BATON_LONG_BYTES is 4 for ILP32 and 8 for LP64) from stdin, 0 after
 *     the end of the input; after BATON_READS_PAST_END such zero reads the run exits quietly
 *     (status 0), because reactive programs (`while (1)` schedulers that read a nondet per
 *     round) would otherwise spin forever on exhausted input and AFL++ rejects a seed that
 *     times out;
 *   - __VERIFIER_assume(c) exits quietly (status 0) when c is false;
 *   - entering reach_error or __VERIFIER_error (whether the program defines them, possibly with
 *     an empty body, or only declares them) raises SIGABRT, which AFL++ records as a crash;
 *   - abort() called by the program exits quietly: SV-COMP programs use it to cut paths, it is
 *     not the error under test;
 *   - when the environment variable BATON_NONDET_LOG names a file, every nondet value read is
 *     appended to it as a line "<type> <decimal value>", and entering the error function
 *     appends "ERROR <function>" (unbuffered writes, so nothing is lost on the abort).
 * Every definition here is weak: a program that defines one of these functions itself keeps
 * its own definition.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef BATON_LONG_BYTES
#define BATON_LONG_BYTES 8
#endif

#define BATON_HARNESS __attribute__((no_instrument_function))
#define BATON_WEAK __attribute__((weak, no_instrument_function))

#ifndef BATON_READS_PAST_END
#define BATON_READS_PAST_END 1024
#endif

static int baton_log_fd = -2;
static unsigned baton_reads_past_end = 0;

BATON_HARNESS static int baton_log(void) {
  if (baton_log_fd == -2) {
    const char *path = getenv("BATON_NONDET_LOG");
    baton_log_fd = -1;
    if (path != NULL && path[0] != '\0') {
      baton_log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    }
  }
  return baton_log_fd;
}

BATON_HARNESS static void baton_log_line(const char *text) {
  int fd = baton_log();
  if (fd >= 0) {
    size_t len = strlen(text);
    ssize_t done = write(fd, text, len);
    (void)done;
  }
}

/* Reads `size` bytes (little-endian) from stdin; missing bytes are 0. */
BATON_HARNESS static unsigned long long baton_read(unsigned size) {
  unsigned char buf[8] = {0};
  size_t got = fread(buf, 1, size, stdin);
  if (got < size) {
    if (baton_reads_past_end >= BATON_READS_PAST_END) {
      _exit(0);
    }
    baton_reads_past_end++;
  }
  unsigned long long v = 0;
  for (unsigned i = 0; i < size; i++) {
    v |= (unsigned long long)buf[i] << (8 * i);
  }
  return v;
}

BATON_HARNESS static long long baton_signed(unsigned long long raw, unsigned size) {
  if (size >= 8) {
    return (long long)raw;
  }
  unsigned long long sign = 1ULL << (8 * size - 1);
  unsigned long long mask = (1ULL << (8 * size)) - 1;
  raw &= mask;
  return (raw & sign) ? (long long)(raw | ~mask) : (long long)raw;
}

BATON_HARNESS static void baton_log_signed(const char *type, long long v) {
  if (baton_log() >= 0) {
    char line[96];
    snprintf(line, sizeof line, "%s %lld\n", type, v);
    baton_log_line(line);
  }
}

BATON_HARNESS static void baton_log_unsigned(const char *type, unsigned long long v) {
  if (baton_log() >= 0) {
    char line[96];
    snprintf(line, sizeof line, "%s %llu\n", type, v);
    baton_log_line(line);
  }
}

#define BATON_NONDET_SIGNED(name, ctype, size)                                                  \
  BATON_WEAK ctype __VERIFIER_nondet_##name(void) {                                             \
    long long v = baton_signed(baton_read(size), size);                                         \
    baton_log_signed(#name, v);                                                                 \
    return (ctype)v;                                                                            \
  }

#define BATON_NONDET_UNSIGNED(name, ctype, size)                                                \
  BATON_WEAK ctype __VERIFIER_nondet_##name(void) {                                             \
    unsigned long long v = baton_read(size);                                                    \
    baton_log_unsigned(#name, v);                                                               \
    return (ctype)v;                                                                            \
  }

BATON_NONDET_SIGNED(char, char, 1)
BATON_NONDET_SIGNED(schar, signed char, 1)
BATON_NONDET_UNSIGNED(uchar, unsigned char, 1)
BATON_NONDET_SIGNED(short, short, 2)
BATON_NONDET_UNSIGNED(ushort, unsigned short, 2)
BATON_NONDET_SIGNED(int, int, 4)
BATON_NONDET_UNSIGNED(uint, unsigned int, 4)
BATON_NONDET_UNSIGNED(unsigned, unsigned int, 4)
BATON_NONDET_SIGNED(long, long, BATON_LONG_BYTES)
BATON_NONDET_UNSIGNED(ulong, unsigned long, BATON_LONG_BYTES)
BATON_NONDET_SIGNED(longlong, long long, 8)
BATON_NONDET_UNSIGNED(ulonglong, unsigned long long, 8)
BATON_NONDET_UNSIGNED(size_t, unsigned long, BATON_LONG_BYTES)
BATON_NONDET_UNSIGNED(sizet, unsigned long, BATON_LONG_BYTES)

BATON_WEAK _Bool __VERIFIER_nondet_bool(void) {
  unsigned long long v = baton_read(1) & 1U;
  baton_log_unsigned("bool", v);
  return (_Bool)v;
}

BATON_WEAK void __VERIFIER_assume(int cond) {
  if (!cond) {
    _exit(0);
  }
}

BATON_HARNESS static void baton_error_reached(const char *name) {
  char line[96];
  snprintf(line, sizeof line, "ERROR %s\n", name);
  baton_log_line(line);
  signal(SIGABRT, SIG_DFL);
  raise(SIGABRT);
  _exit(134);
}

/* Fallback definitions for programs that only declare the error functions. */
BATON_WEAK void reach_error(void) { baton_error_reached("reach_error"); }
BATON_WEAK void __VERIFIER_error(void) { baton_error_reached("__VERIFIER_error"); }

/* abort() in the program cuts the path (SV-COMP convention): exit quietly. Weak, so a program
 * that defines abort itself still links; it still takes precedence over the C library. */
BATON_WEAK void abort(void) { _exit(0); }

BATON_HARNESS void __cyg_profile_func_enter(void *this_fn, void *call_site) {
  (void)call_site;
  if (this_fn == (void *)&reach_error) {
    baton_error_reached("reach_error");
  }
  if (this_fn == (void *)&__VERIFIER_error) {
    baton_error_reached("__VERIFIER_error");
  }
}

BATON_HARNESS void __cyg_profile_func_exit(void *this_fn, void *call_site) {
  (void)this_fn;
  (void)call_site;
}

// Inline assembly (a no-op barrier) that Baton's frontend rejects; the error needs x < 0 and
// x > 10 at once.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  __asm__ volatile("" ::: "memory");
  if (x < 0 && x > 10) reach_error();
  return 0;
}

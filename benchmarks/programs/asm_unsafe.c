// Inline assembly (a no-op barrier) that Baton's frontend rejects; the error is reached for
// x = 11 or 12.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  __asm__ volatile("" ::: "memory");
  if (x > 10 && x < 13) reach_error();
  return 0;
}

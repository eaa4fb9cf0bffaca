/* Baton test program: bug via the old-style __VERIFIER_error (declared, no body). */
extern void __VERIFIER_error(void);
extern long __VERIFIER_nondet_long(void);
extern unsigned int __VERIFIER_nondet_uint(void);
int main(void) {
  long a = __VERIFIER_nondet_long();
  unsigned int b = __VERIFIER_nondet_uint();
  if (a > 1000 && b == 4000000000u) {
    __VERIFIER_error();
  }
  return 0;
}

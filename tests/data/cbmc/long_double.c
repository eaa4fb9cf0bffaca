/* Baton test program: CBMC's long double values are read back as x87 values (verified with
 * -m32 and -m64, where CBMC's formats have 80 and 112 fraction bits). */
extern void reach_error(void);
extern long double __VERIFIER_nondet_long_double(void);
extern double __VERIFIER_nondet_double(void);
int main(void) {
  long double x = __VERIFIER_nondet_long_double();
  long double y = __VERIFIER_nondet_long_double();
  double d = __VERIFIER_nondet_double();
  if (x == 2.5L && y == -0x1.8p-16400L && d == 0.25) {
    reach_error();
  }
  return 0;
}

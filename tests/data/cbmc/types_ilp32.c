/* Baton test program: bug reachable only with specific values of several nondet types;
 * verified with -m32 (ILP32), where long is 32 bits. */
extern void reach_error(void);
extern _Bool __VERIFIER_nondet_bool(void);
extern char __VERIFIER_nondet_char(void);
extern short __VERIFIER_nondet_short(void);
extern unsigned long __VERIFIER_nondet_ulong(void);
extern long long __VERIFIER_nondet_longlong(void);
int main(void) {
  _Bool b = __VERIFIER_nondet_bool();
  char c = __VERIFIER_nondet_char();
  short s = __VERIFIER_nondet_short();
  unsigned long ul = __VERIFIER_nondet_ulong();
  long long ll = __VERIFIER_nondet_longlong();
  if (b && c == -100 && s == -30000 && ul == 4294967295ul && ll == -5000000000ll) {
    reach_error();
  }
  return 0;
}

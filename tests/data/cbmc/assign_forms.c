/* Baton test program: nondet values reach variables by declaration initialisers, plain
 * assignments, K&R declarations and inside a loop; the bug needs all of them. */
extern int __VERIFIER_nondet_int();
extern unsigned short __VERIFIER_nondet_ushort(void);
void reach_error() {}
int main() {
  int a;
  int sum = 0;
  a = __VERIFIER_nondet_int();
  unsigned short u = __VERIFIER_nondet_ushort();
  for (int i = 0; i < 2; i++) {
    sum += __VERIFIER_nondet_int();
  }
  if (a == 5 && u == 65535 && sum == -3) {
    reach_error();
  }
  return 0;
}

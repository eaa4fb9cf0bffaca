/* `parameters.c` with the parameters of `check` swapped: the same calls, and now a bug. */
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}

int last;

void check(int b, int a) {
  if (a > b) {
    reach_error();
  }
  last = b;
}

int main(void) {
  int n = __VERIFIER_nondet_int();
  check(1, 2);
  if (n) {
    check(3, 4);
  }
  return 0;
}

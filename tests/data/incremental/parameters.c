/* Two calls of a function that compares its parameters; correct: `a` is never above `b`. */
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}

int last;

void check(int a, int b) {
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

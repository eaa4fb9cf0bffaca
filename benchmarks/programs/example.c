/* A small sv-benchmarks-style task: count up to a nondeterministic bound. */
extern void abort(void);
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}

void assume_abort_if_not(int cond) {
  if (!cond) {
    abort();
  }
}

int main(void) {
  int n = __VERIFIER_nondet_int();
  assume_abort_if_not(n >= 0 && n < 1000);
  int i = 0;
  int sum = 0;
  while (i < n) {
    if (i % 2 == 0) {
      sum += 2;
    } else {
      sum++;
    }
    i++;
  }
  if (sum < i) {
    reach_error();
  }
  return 0;
}

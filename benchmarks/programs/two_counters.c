/* Two counters that move together up to a nondeterministic bound. The explicit-value analysis
 * unrolls the loop forever and gives up; the predicate analysis proves x == y. */
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}

int main(void) {
  int n = __VERIFIER_nondet_int();
  int x = 0;
  int y = 0;
  while (x < n) {
    x++;
    y++;
  }
  if (x != y) {
    reach_error();
  }
  return 0;
}

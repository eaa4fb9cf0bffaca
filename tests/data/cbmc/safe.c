/* Baton test program: safe (the branch to reach_error is infeasible). */
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 10 && x < 5) {
    reach_error();
  }
  return 0;
}

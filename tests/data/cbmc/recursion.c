/* Baton test program: safe, but the recursion is deeper than the bound used. */
extern void reach_error(void);
int depth(int n) {
  if (n <= 0) {
    return 0;
  }
  return 1 + depth(n - 1);
}
int main(void) {
  if (depth(20) != 20) {
    reach_error();
  }
  return 0;
}

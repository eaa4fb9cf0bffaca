/* Baton test program: bug; reach_error has an empty body in the program itself. */
extern int __VERIFIER_nondet_int(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
void reach_error(void) {}
int main(void) {
  int x = __VERIFIER_nondet_int();
  unsigned char c = __VERIFIER_nondet_uchar();
  if (x == -7 && c == 200) {
    reach_error();
  }
  return 0;
}

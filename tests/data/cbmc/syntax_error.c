/* Baton test program: does not parse. */
int main(void) {
  int x = ;
  return x;
}

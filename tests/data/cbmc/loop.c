/* Baton test program: safe, but the loop needs 100 unwindings (more than the bound used). */
extern void reach_error(void);
int main(void) {
  int i = 0;
  while (i < 100) {
    i++;
  }
  if (i != 100) {
    reach_error();
  }
  return 0;
}

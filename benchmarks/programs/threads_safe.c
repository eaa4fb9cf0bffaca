// A worker thread sets a flag that main reads after joining it; the error needs flag == 2.
// Baton's frontend rejects threads (and the arrays in pthread.h); CBMC models them.
#include <pthread.h>
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
int flag = 0;
void *worker(void *arg) { flag = 1; return 0; }
int main(void) {
  pthread_t t;
  int x = __VERIFIER_nondet_int();
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  if (flag == 2 && x == 42) reach_error();
  return 0;
}

/* `Example` of seed 002 with a change at the start of `ioOperation`, which every loop
 * iteration passes: a failed operation is counted and skipped. Everything after the change
 * (the rest of the loop, `requestStop`, `stopDevice`) is as before: a re-verification from
 * Example's proof meets the old proof again behind the changed branch. */
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}

int STOP = 0;
int WORK = 1;
int WAIT = 2;
int status;
int failures;

void startDevice(void) {
  if (status != STOP) {
    reach_error();
  }
  status = WORK;
}

void ioOperation(void) {
  if (__VERIFIER_nondet_int()) {
    failures = 1;
  } else if (status != WORK) {
    reach_error();
  }
}

int requestStop(void) {
  if (status != WORK) {
    reach_error();
  }
  if (__VERIFIER_nondet_int()) {
    status = WAIT;
    return 1;
  }
  return 0;
}

void stopDevice(void) {
  if (status != WAIT) {
    reach_error();
  }
  status = STOP;
}

int main(void) {
  int b;
  status = STOP;
  startDevice();
  b = 0;
  while (!b) {
    ioOperation();
    b = requestStop();
  }
  stopDevice();
  return 0;
}

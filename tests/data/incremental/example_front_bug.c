/* `example_front.c` with a bug in the changed branch: a failed operation stops the device,
 * and `requestStop` then finds it in the wrong state. The old proof, met again behind the
 * branch, must not hide it. */
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
    status = STOP;
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

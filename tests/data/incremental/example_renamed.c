/* Seed 002's `Example` with its local `b` renamed to `done`: the same program to the analysis. */
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}

int STOP = 0;
int WORK = 1;
int WAIT = 2;
int status;

void startDevice(void) {
  if (status != STOP) {
    reach_error();
  }
  status = WORK;
}

void ioOperation(void) {
  if (status != WORK) {
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
  int done;
  status = STOP;
  startDevice();
  done = 0;
  while (!done) {
    ioOperation();
    done = requestStop();
  }
  stopDevice();
  return 0;
}

/* `Example` with a change outside the values the old proof tracks: a new global flag, a local
 * of `ioOperation` that is never read (dead, so its value is dropped) and a changed statement
 * behind a branch the old proof shows infeasible. Example (Fig. 1): a device driven through STOP -> WORK -> WAIT ->
 * STOP; every call must find the device in the state the specification (Fig. 2) demands. */
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}

int STOP = 0;
int WORK = 1;
int WAIT = 2;
int status;
int served;

void startDevice(void) {
  if (status != STOP) {
    reach_error();
  }
  status = WORK;
}

void ioOperation(void) {
  int unused = status + 1;
  served = 1;
  if (status != WORK) {
    status = STOP;
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

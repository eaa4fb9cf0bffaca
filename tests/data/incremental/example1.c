/* The program `Example1` of seed 002 (Fig. 6): `Example` counting the I/O requests served and
 * resetting a data buffer, which touches no predicate of its proof. Example (Fig. 1): a device driven through STOP -> WORK -> WAIT ->
 * STOP; every call must find the device in the state the specification (Fig. 2) demands. */
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}

int STOP = 0;
int WORK = 1;
int WAIT = 2;
int status;
int count;
int dataBuf;

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
  int b;
  status = STOP;
  startDevice();
  b = 0;
  while (!b) {
    ioOperation();
    count = count + 1;
    b = requestStop();
    dataBuf = 0;
  }
  stopDevice();
  return 0;
}

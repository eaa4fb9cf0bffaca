/* A water-tank controller, version v1 of a development history written for Baton's
 * incremental re-verification (seed 002): the first version: filling and draining between two thresholds. */
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "tank.c", 3, "reach_error"); }
extern int __VERIFIER_nondet_int(void);

/* Modes of the controller. */
int IDLE = 0;
int FILL = 1;
int DRAIN = 2;
int MAX = 8;
int mode;
int level;
int inflow;
int outflow;

void check(void) {
  if (level < 0 || level > MAX) {
    reach_error();
  }
}

void open_inflow(void) {
  inflow = 1;
}

void close_inflow(void) {
  inflow = 0;
}

void open_outflow(void) {
  outflow = 1;
}

void close_outflow(void) {
  outflow = 0;
}

/* One time step: an open valve moves the level by one. */
void step_physics(void) {
  if (inflow) {
    level = level + 1;
  }
  if (outflow) {
    level = level - 1;
  }
}

/* Requests: 1 fill, 2 drain, 3 stop. */
void controller(int request) {
  if (mode == IDLE) {
    if (request == 1 && level < MAX - 1) {
      mode = FILL;
      open_inflow();
    } else if (request == 2 && level > 1) {
      mode = DRAIN;
      open_outflow();
    }
  } else if (mode == FILL) {
    if (level >= MAX - 1 || request == 3) {
      close_inflow();
      mode = IDLE;
    }
  } else if (mode == DRAIN) {
    if (level <= 1 || request == 3) {
      close_outflow();
      mode = IDLE;
    }
  }
}

int main(void) {
  mode = IDLE;
  level = 4;
  inflow = 0;
  outflow = 0;
  while (__VERIFIER_nondet_int()) {
    int request = __VERIFIER_nondet_int();
    controller(request);
    step_physics();
    check();
  }
  return 0;
}

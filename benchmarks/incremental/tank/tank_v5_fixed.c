/* A water-tank controller, version v5_fixed of a development history written for Baton's
 * incremental re-verification (seed 002): the fix of v5. */
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "tank.c", 3, "reach_error"); }
extern int __VERIFIER_nondet_int(void);

/* Modes of the controller. */
int IDLE = 0;
int FILL = 1;
int DRAIN = 2;
int ALARM = 3;
int MAX = 8;
int mode;
int level;
int inflow;
int outflow;
int last_request;
int alarms;

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

void start_fill(void) {
  mode = FILL;
  open_inflow();
}

void start_drain(void) {
  mode = DRAIN;
  open_outflow();
}

/* Requests: 1 fill, 2 drain, 3 stop, 4 emergency stop, 5 reset. */
void controller(int request) {
  if (request == 4) {
    close_inflow();
    close_outflow();
    mode = ALARM;
    alarms = 1;
    return;
  }
  if (mode == ALARM) {
    if (request == 5) {
      mode = IDLE;
    }
  } else if (mode == IDLE) {
    if (request == 1 && level < MAX - 1) {
      start_fill();
    } else if (request == 2 && level > 1) {
      start_drain();
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
    last_request = request;
    controller(request);
    step_physics();
    check();
  }
  return 0;
}

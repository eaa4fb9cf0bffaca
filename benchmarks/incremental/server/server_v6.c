/* A connection server, version v6 of a development history written for Baton's
 * incremental re-verification (seed 002): data arriving while closing is buffered (new feature). */
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "server.c", 3, "reach_error"); }
extern int __VERIFIER_nondet_int(void);

/* Connection states. */
int CLOSED = 0;
int LISTEN = 1;
int SYN_RCVD = 2;
int ESTABLISHED = 3;
int CLOSING = 4;
int MAX_RETRIES = 3;
int state;
int retries;
int delivered;
int idle;
int last_packet;
int fins;
int buffered;

/* Data may only be handed to the application on an established connection. */
void deliver(void) {
  if (state != ESTABLISHED) {
    reach_error();
  }
  delivered = delivered + 1;
  if (delivered > 1) {
    delivered = 1;
  }
}

void handle_syn_rcvd(int packet) {
  if (packet == 2) {
    state = ESTABLISHED;
  } else if (packet == 0) {
    if (retries < MAX_RETRIES) {
      retries = retries + 1;
    } else {
      state = LISTEN;
    }
  }
}

/* Packets: 0 timeout, 1 SYN, 2 ACK, 3 DATA, 4 FIN, 5 keepalive. */
void handle(int packet) {
  if (state == LISTEN) {
    if (packet == 1) {
      state = SYN_RCVD;
      retries = 0;
    }
  } else if (state == SYN_RCVD) {
    handle_syn_rcvd(packet);
  } else if (state == ESTABLISHED) {
    if (packet == 3) {
      deliver();
      idle = 0;
    } else if (packet == 4) {
      state = CLOSING;
      fins = 1;
    } else if (packet == 5) {
      idle = 0;
    } else if (packet == 0) {
      idle = idle + 1;
      if (idle > 2) {
        state = CLOSING;
        idle = 0;
      }
    }
  } else if (state == CLOSING) {
    if (packet == 2) {
      state = LISTEN;
      buffered = 0;
    } else if (packet == 3) {
      buffered = 1;
    }
  }
  if (retries > MAX_RETRIES) {
    reach_error();
  }
}

int main(void) {
  state = LISTEN;
  retries = 0;
  delivered = 0;
  while (__VERIFIER_nondet_int()) {
    int packet = __VERIFIER_nondet_int();
    last_packet = packet;
    handle(packet);
  }
  return 0;
}

/* KbFilter_PnP, step 1 of the development in seed 002 (Extreme Model Checking) §5,
 * written for Baton in sv-benchmarks conventions. The IRP-completion property: an IRP passed
 * down the stack (s == SKIP2) returns the lower driver's status, and an IRP the driver
 * completed itself (s == DC) does not return STATUS_PENDING. Every case passes the IRP down. */
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "kbfilter", 7, "reach_error"); }
extern int __VERIFIER_nondet_int(void);

int NP = 1;
int SKIP1 = 2;
int SKIP2 = 3;
int MPR1 = 4;
int MPR3 = 5;
int DC = 6;
int s;
int compRegistered;
int lowerDriverReturn;
int requests;
int started;
int removed;
int surpriseRemoved;

void IoSkipCurrentIrpStackLocation(void) {
  if (s == NP) {
    s = SKIP1;
  } else {
    reach_error();
  }
}

void IoCopyCurrentIrpStackLocationToNext(void) {
}

void IoSetCompletionRoutine(void) {
  compRegistered = 1;
}

/* The lower driver: STATUS_SUCCESS (0), STATUS_PENDING (259) or an error (< 0). */
int IoCallDriver(void) {
  int status = __VERIFIER_nondet_int();
  if (status != 0 && status != 259 && status >= 0) {
    abort();
  }
  if (compRegistered) {
    /* KbFilter_Complete sets the event and returns STATUS_MORE_PROCESSING_REQUIRED */
    if (s == NP) {
      s = MPR1;
    } else {
      reach_error();
    }
    compRegistered = 0;
  }
  if (s == SKIP1) {
    s = SKIP2;
  } else if (s == MPR1) {
    if (status == 259) {
      s = MPR3;
    } else {
      s = NP;
    }
  }
  lowerDriverReturn = status;
  return status;
}

int KeWaitForSingleObject(void) {
  if (s == MPR3) {
    s = NP;
  } else {
    reach_error();
  }
  return 0;
}

void IoCompleteRequest(void) {
  if (s == NP) {
    s = DC;
  } else {
    reach_error();
  }
}

int KbFilter_PnP(int minor) {
  int status = 0;
  requests = requests + 1;
  switch (minor) {
  case 0: /* IRP_MN_START_DEVICE */
    IoSkipCurrentIrpStackLocation();
    status = IoCallDriver();
    break;
  case 23: /* IRP_MN_SURPRISE_REMOVAL */
    IoSkipCurrentIrpStackLocation();
    status = IoCallDriver();
    break;
  case 2: /* IRP_MN_REMOVE_DEVICE */
    IoSkipCurrentIrpStackLocation();
    status = IoCallDriver();
    break;
  default:
    IoSkipCurrentIrpStackLocation();
    status = IoCallDriver();
    break;
  }
  return status;
}

int main(void) {
  int minor = __VERIFIER_nondet_int();
  int status;
  s = NP;
  compRegistered = 0;
  status = KbFilter_PnP(minor);
  if (s == SKIP2) {
    if (status != lowerDriverReturn) {
      reach_error();
    }
  } else if (s == DC) {
    if (status == 259) {
      reach_error();
    }
  }
  return 0;
}

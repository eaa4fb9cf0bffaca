//! Runs generated programs natively with gcc, many programs per compiled executable.
//!
//! Each batch is one translation unit: a harness (the special functions of sv-benchmarks
//! reading nondet values from a list, recording how the run ended), then every program with its
//! declaration lines blanked out, `main` renamed and `#line 1` in front so `__LINE__` is the
//! line in the program text, then a dispatcher `main`. The executable reads one run per stdin
//! line (`program-index value value …`), forks per run and prints one line per run:
//! `RETURN v n`, `EXIT code n`, `ERROR line n`, `ABORT line n`, `ASSUME line n` (n = number of
//! nondet calls), or `CRASH status` when the child died otherwise (e.g. a signal or the alarm).

#![allow(dead_code)]

use super::cgen::{GenProgram, NONDETS};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const HARNESS_HEAD: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
static unsigned long long baton_in[256];
static int baton_n, baton_pos;
static long baton_calls;
static void baton_end(const char *kind, long long v) {
  printf("%s %lld %ld\n", kind, v, baton_calls);
  fflush(stdout);
  _exit(0);
}
void baton_reach_error(int line) { baton_end("ERROR", line); }
void baton_abort(int line) { baton_end("ABORT", line); }
void baton_exit(int code) { baton_end("EXIT", code); }
void baton_assume(int cond, int line) { if (!cond) baton_end("ASSUME", line); }
static unsigned long long baton_next(void) {
  baton_calls++;
  return baton_pos < baton_n ? baton_in[baton_pos++] : 0ULL;
}
"#;

const HARNESS_MACROS: &str = r#"
#define reach_error() baton_reach_error(__LINE__)
#define abort() baton_abort(__LINE__)
#define exit(c) baton_exit(c)
#define __VERIFIER_assume(c) baton_assume(c, __LINE__)
"#;

const HARNESS_MAIN: &str = r#"
int main(void) {
  static char line[65536];
  while (fgets(line, sizeof line, stdin)) {
    char *p = line, *end;
    long k = strtol(p, &end, 10);
    if (end == p) continue;
    p = end;
    baton_n = 0;
    for (;;) {
      while (*p == ' ') p++;
      if (*p == '\n' || *p == 0) break;
      if (*p == '-') baton_in[baton_n++] = (unsigned long long)strtoll(p, &end, 10);
      else baton_in[baton_n++] = strtoull(p, &end, 10);
      if (end == p || baton_n >= 256) break;
      p = end;
    }
    baton_pos = 0;
    baton_calls = 0;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      alarm(10);
      int r = baton_mains[k]();
      baton_end("RETURN", r);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      printf("CRASH %d 0\n", status);
      fflush(stdout);
    }
  }
  return 0;
}
"#;

/// Checks that `gcc <flag>` can compile and link a program; the error says why not.
pub fn gcc_works(flag: &str, dir: &Path) -> Result<(), String> {
    let src = dir.join(format!("probe{flag}.c"));
    let exe = dir.join(format!("probe{flag}"));
    std::fs::write(&src, "int main(void) { return sizeof(long) == 0; }\n")
        .map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let out = Command::new("gcc")
        .arg(flag)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot run gcc: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err.lines().next().unwrap_or("").to_string();
        return Err(format!("gcc {flag} cannot link a program: {first}"));
    }
    Ok(())
}

/// The translation unit for a batch of programs.
pub fn batch_source(programs: &[GenProgram]) -> String {
    let mut s = String::from(HARNESS_HEAD);
    for (suffix, ty) in NONDETS {
        let _ = writeln!(
            s,
            "{ty} __VERIFIER_nondet_{suffix}(void) {{ return ({ty})baton_next(); }}"
        );
    }
    s.push_str(HARNESS_MACROS);
    for (i, p) in programs.iter().enumerate() {
        let _ = writeln!(s, "#define main baton_main_{i}");
        let _ = writeln!(s, "#line 1 \"{}.c\"", p.prefix);
        for (n, line) in p.lines.iter().enumerate() {
            if n >= p.decl_lines {
                s.push_str(line);
            }
            s.push('\n');
        }
        s.push_str("#undef main\n");
    }
    s.push_str("#line 100000 \"harness.c\"\n");
    s.push_str("static int (*baton_mains[])(void) = {");
    for i in 0..programs.len() {
        let _ = write!(s, "baton_main_{i}, ");
    }
    s.push_str("};\n");
    s.push_str(HARNESS_MAIN);
    s
}

/// Compiles a batch with `gcc -fwrapv -w -O0 <flag>`; returns the executable.
pub fn compile_batch(programs: &[GenProgram], flag: &str, dir: &Path, name: &str) -> Result<PathBuf, String> {
    let src = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&src, batch_source(programs))
        .map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let out = Command::new("gcc")
        .args(["-fwrapv", "-w", "-O0", flag, "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot run gcc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "gcc {flag} failed on {}:\n{}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .take(20)
                .collect::<Vec<_>>()
                .join("\n")
        ));
    }
    Ok(exe)
}

/// Runs `(program index, inputs)` pairs on a batch executable; one result line per run.
pub fn run_batch(exe: &Path, runs: &[(usize, Vec<i128>)]) -> Result<Vec<String>, String> {
    let mut input = String::new();
    for (k, values) in runs {
        let _ = write!(input, "{k}");
        for v in values {
            let _ = write!(input, " {v}");
        }
        input.push('\n');
    }
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("waiting for {}: {e}", exe.display()))?;
    writer
        .join()
        .map_err(|_| "writer thread panicked".to_string())?
        .map_err(|e| format!("writing to {}: {e}", exe.display()))?;
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    if lines.len() != runs.len() {
        return Err(format!(
            "{} printed {} result lines for {} runs",
            exe.display(),
            lines.len(),
            runs.len()
        ));
    }
    Ok(lines)
}

//! Runs a command N times under `baton::exec` and prints each run and the medians of CPU time,
//! wall time and peak memory, for comparison with BenchExec's `runexec`.
//!
//! Usage:
//!   cargo run --release --example cpu_measure -- [-n N] [--cpu SECS] [--wall SECS]
//!       [--mem BYTES] [--sampling] -- COMMAND [ARGS...]
//!
//! Example: `cargo run --example cpu_measure -- -n 5 -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'`
//!
//! The command inherits this program's environment. When comparing with `runexec`, give both the
//! same environment (and do not start this one through `cargo run`, which adds `CARGO_*`
//! variables): the CPU time an interpreter such as `dash` really uses for the same loop changes by
//! several percent with the environment alone, e.g. with the number of variables (zero to five
//! extra unused variables `Dk=x` moved the median of a `dash` loop between 2.04 s and 2.16 s; an
//! inherited `_=...` alone made it 2.6 % faster), presumably because its heap layout changes. Both
//! tools measure that real difference correctly, so it shows up as a ratio that is not 1.
//! Put `runexec`'s child environment (it adds `HOME`, `TMPDIR`, `TMP`, `TEMPDIR` and `TEMP`, and
//! a Python launcher may add more; `runexec -- sh -c 'env > FILE'` shows it) into a file, one
//! `NAME=value` a line, and run `env -i $(cat FILE) target/release/examples/cpu_measure -n 1 --
//! CMD...`; interleave the runs of both tools and compare medians. A compiled busy loop (no
//! interpreter) is insensitive to this and agrees within about 1 %.

use std::process::ExitCode;
use std::time::Duration;

use baton::exec::{probe_mechanism, run_with, Limits, MechanismChoice, ToolCommand};

struct Options {
    runs: usize,
    limits: Limits,
    choice: MechanismChoice,
    argv: Vec<String>,
}

fn parse_args() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut opts = Options {
        runs: 5,
        limits: Limits::default(),
        choice: MechanismChoice::Auto,
        argv: Vec::new(),
    };
    let secs = |v: Option<String>, flag: &str| -> Result<Duration, String> {
        let v = v.ok_or(format!("{flag} needs a value"))?;
        let s: f64 = v
            .parse()
            .map_err(|_| format!("{flag}: `{v}` is not a number of seconds"))?;
        Duration::try_from_secs_f64(s).map_err(|e| format!("{flag}: {e}"))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-n" => {
                let v = args.next().ok_or("-n needs a value")?;
                opts.runs = v.parse().map_err(|_| format!("-n: `{v}` is not a count"))?;
            }
            "--cpu" => opts.limits.cpu_time = Some(secs(args.next(), "--cpu")?),
            "--wall" => opts.limits.wall_time = Some(secs(args.next(), "--wall")?),
            "--mem" => {
                let v = args.next().ok_or("--mem needs a value")?;
                opts.limits.memory = Some(
                    v.parse()
                        .map_err(|_| format!("--mem: `{v}` is not a number of bytes"))?,
                );
            }
            "--sampling" => opts.choice = MechanismChoice::SamplingOnly,
            "--" => {
                opts.argv = args.by_ref().collect();
            }
            other => return Err(format!("unknown option `{other}` (the command goes after --)")),
        }
    }
    if opts.argv.is_empty() {
        return Err("no command given; usage: cpu_measure [-n N] [--cpu S] [--wall S] [--mem B] [--sampling] -- CMD ARGS...".into());
    }
    if opts.runs == 0 {
        return Err("-n must be at least 1".into());
    }
    Ok(opts)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    }
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("cpu_measure: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (mechanism, why) = probe_mechanism();
    println!("mechanism available: {mechanism} ({why})");
    let cmd = ToolCommand::new(opts.argv.iter().cloned());
    let mut cpus = Vec::new();
    let mut walls = Vec::new();
    let mut mems = Vec::new();
    for i in 1..=opts.runs {
        match run_with(&cmd, &opts.limits, opts.choice) {
            Ok(r) => {
                println!(
                    "run {i}: status={} cpu={:.3}s wall={:.3}s peak_mem={} measured_by={}",
                    r.status,
                    r.cpu_time.as_secs_f64(),
                    r.wall_time.as_secs_f64(),
                    r.peak_memory
                        .map(|m| format!("{m}B"))
                        .unwrap_or_else(|| "n/a".into()),
                    r.measurement
                );
                cpus.push(r.cpu_time);
                walls.push(r.wall_time);
                if let Some(m) = r.peak_memory {
                    mems.push(m);
                }
            }
            Err(e) => {
                eprintln!("cpu_measure: run {i}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    mems.sort_unstable();
    println!(
        "median of {} runs: cpu={:.3}s wall={:.3}s peak_mem={}",
        opts.runs,
        median(cpus).as_secs_f64(),
        median(walls).as_secs_f64(),
        mems.get(mems.len() / 2)
            .map(|m| format!("{m}B"))
            .unwrap_or_else(|| "n/a".into())
    );
    ExitCode::SUCCESS
}

//! The C frontend: preprocesses a C file with gcc, parses it with `lang-c` and lowers it into
//! Baton's CFA model ([`crate::cfa::Program`]).
//!
//! Baton models integers, `float`/`double`/`long double` (IEEE-754 and x87's extended format, see
//! [`crate::cfa::float`]), unions of
//! scalars for type punning, arrays of these (fixed and variable length, multi-dimensional,
//! with initialiser lists; see [`crate::cfa::memory`]), structs as records of scalar cells
//! (nested, arrays of structs, copies, initialisers, passed by value), recursion, and pointers
//! ([`crate::cfa::address`]: address-of scalars, scalar arrays and their elements and struct
//! members, decay of one-dimensional arrays, `*p`, `p->f`, `p[i]`, arithmetic within an object,
//! `malloc`/`calloc`/`realloc`/`free`/`alloca`, never failing). Everything else (the address of
//! a whole struct variable, structs copied through pointers, function pointers)
//! is rejected with a one-line
//! `FILE:LINE: unsupported: <construct>` error instead of being approximated, so no later stage
//! can give a verdict about a program it does not understand. Only what the program uses
//! counts: declarations (libc prototypes with function pointers, typedefs of structs, objects of
//! unmodelled types) and functions `main` never reaches are never a reason to reject it, and
//! an error inside a header's code names the program's line that reached it.
//!
//! sv-benchmarks conventions the lowering follows:
//! - `reach_error()` / `__VERIFIER_error()` are the property violation, whatever their body.
//! - `__VERIFIER_nondet_<T>()` and every other function without a body that returns a value
//!   yield an arbitrary value of the return type; `void` functions without a body do nothing.
//! - `__VERIFIER_assume(c)` and `assume_abort_if_not(c)` block the paths where `c` is 0;
//!   `abort()`, `__assert_fail(...)` and `exit(e)` end the path without an error.

mod lines;
mod lower;
mod nesting;
mod parse;
mod preprocess;
mod reach;
mod types;

use crate::cfa::types::DataModel;
use crate::cfa::Program;
use preprocess::preprocess;
use sha2::{Digest, Sha256};
use std::path::Path;
use thiserror::Error;

/// Why a C file could not be turned into a [`Program`]. Every variant displays as one line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrontendError {
    /// A construct Baton does not model (inline assembly, bit-fields in unions, ...).
    #[error("{file}:{line}: unsupported: {construct}")]
    Unsupported {
        file: String,
        line: u32,
        construct: String,
    },
    /// Malformed C: a syntax error or a semantic error such as an undeclared identifier.
    #[error("{file}:{line}: error: {message}")]
    Malformed {
        file: String,
        line: u32,
        message: String,
    },
    /// A problem with the program as a whole (e.g. no `main`).
    #[error("{file}: error: {message}")]
    Program { file: String, message: String },
    /// The file could not be read.
    #[error("{file}: cannot read: {message}")]
    Io { file: String, message: String },
    /// gcc failed to preprocess the file.
    #[error("{file}: preprocessor failed: {message}")]
    Preprocessor { file: String, message: String },
}

impl FrontendError {
    /// The process exit status for this error (2: the input cannot be analysed).
    pub fn exit_code(&self) -> i32 {
        2
    }
}

/// Squeezes a message into one line.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The largest C file accepted (sv-benchmarks' largest preprocessed files are a few MiB).
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// Loads a C file (`.c` is preprocessed with gcc; `.i` is preprocessed again, which is
/// harmless) and lowers it into a CFA program for the given data model.
pub fn load_program(path: &Path, model: DataModel) -> Result<Program, FrontendError> {
    let name = path.display().to_string();
    let io_error = |message: String| FrontendError::Io {
        file: name.clone(),
        message: one_line(&message),
    };
    // A FIFO, a device or a directory would block, never end or fail obscurely.
    let metadata = std::fs::metadata(path).map_err(|e| io_error(e.to_string()))?;
    if !metadata.is_file() {
        return Err(io_error("not a regular file".into()));
    }
    if metadata.len() > MAX_SOURCE_BYTES {
        return Err(io_error(format!("larger than {} MiB", MAX_SOURCE_BYTES >> 20)));
    }
    let bytes = std::fs::read(path).map_err(|e| io_error(e.to_string()))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let preprocessed = preprocess(&name, &text, model)?;
    let hash = sha256_hex(&bytes);
    lower::lower(&name, &preprocessed, model, hash)
}

/// Like [`load_program`] but from a string: `name` is used as the file name in positions and
/// errors. The hash is that of `text`.
pub fn load_source(name: &str, text: &str, model: DataModel) -> Result<Program, FrontendError> {
    let preprocessed = preprocess(name, text, model)?;
    lower::lower(name, &preprocessed, model, sha256_hex(text.as_bytes()))
}

/// SHA-256 of `bytes` as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

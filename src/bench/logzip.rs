//! BenchExec's archive of a benchmark's logs: `<benchmark>.logfiles.zip` beside the result XML
//! files, holding `<benchmark>.logfiles/<run definition>.<log file>` per run. The result XML's
//! `logfile` names that path, so table-generator, not finding the folder, reads the log from
//! the archive (as it does for BenchExec's own results). The logs stay in `logs/` as well,
//! where runs write them and `${logfile_path}` names them.

use super::report::RunResult;
use super::BenchError;
use std::io::Write;
use std::path::Path;
use zip::write::SimpleFileOptions;

/// The archive's file name.
pub fn archive_name(benchmark: &str) -> String {
    format!("{benchmark}.logfiles.zip")
}

/// A run's log as the result XML names it: its path in the archive (relative to the XML).
pub fn archived_log(benchmark: &str, run_definition: &str, log: &str) -> String {
    let file = log.rsplit('/').next().unwrap_or(log);
    format!("{benchmark}.logfiles/{run_definition}.{file}")
}

/// Writes the archive of the logs of `results` (paths relative to `dir`) into `dir`, replacing
/// an earlier one whole (written to a temporary file first).
pub fn write_archive(dir: &Path, benchmark: &str, results: &[&RunResult]) -> Result<(), BenchError> {
    let path = dir.join(archive_name(benchmark));
    let failed =
        |e: &dyn std::fmt::Display| BenchError::Invalid(format!("{}: cannot write: {e}", path.display()));
    let file = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| BenchError::io(dir, "cannot create a file in", e))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for r in results {
        let Some(log) = &r.log else { continue };
        // A log that cannot be read (removed since) is left out, as BenchExec leaves out
        // logs it did not write.
        let Ok(text) = std::fs::read(dir.join(log)) else {
            continue;
        };
        zip.start_file(archived_log(benchmark, &r.run_definition, log), options)
            .map_err(|e| failed(&e))?;
        zip.write_all(&text).map_err(|e| failed(&e))?;
    }
    let file = zip.finish().map_err(|e| failed(&e))?;
    file.persist(&path).map_err(|e| failed(&e))?;
    Ok(())
}

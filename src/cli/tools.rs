//! `tools`: the tool adapters, and whether their executables are found.

use super::{write_stdout, AdapterDirs, Failure};
use baton::cli_json::{self, document};

#[derive(clap::Args)]
pub(crate) struct ToolsArgs {
    #[command(flatten)]
    pub(crate) adapters: AdapterDirs,
    /// Print the adapters as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Prints each adapter (built-in and user) with its executables, found or not, and version.
pub(crate) fn tools(a: ToolsArgs) -> Result<(), Failure> {
    use baton::adapters::registry::{tool_status, Registry};
    let registry = Registry::load(&a.adapters.dirs).map_err(Failure::input)?;
    let statuses = tool_status(&registry);
    let native = vec!["explicit", "predicate", "chc"];
    if a.json {
        let report = cli_json::ToolsReport::new(&statuses, native);
        outln!("{}", document(&report).map_err(Failure::other)?);
        return Ok(());
    }
    for status in statuses {
        let found = status.executables.iter().all(|(_, f)| f.is_ok());
        let version = match (&status.version, &status.not_installable) {
            (Some(v), _) => v.clone(),
            (None, _) if found => "found (version unknown)".to_string(),
            (None, Some(_)) => "not installable here".to_string(),
            (None, None) => "not found".to_string(),
        };
        outln!("{:12} {version}  [{}]", status.tool, status.origin);
        for (role, found) in &status.executables {
            match found {
                Ok(p) => outln!("    {role}: {}", p.display()),
                Err(names) => {
                    outln!("    {role}: {names}: not found (on PATH, BATON_TOOLS_DIR or /opt/baton-tools)")
                }
            }
        }
        if let (None, Some(why)) = (&status.version, &status.not_installable) {
            outln!("    cannot be installed on this machine: {why}");
        }
    }
    outln!("native       {} (built in)", native.join(", "));
    Ok(())
}

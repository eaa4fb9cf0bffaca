# BenchExec tool-info module for Baton, the conditional model checker of this repository.
#
# Install: copy this file into the folder of BenchExec's tool-info modules, e.g.
#   cp contrib/benchexec/baton.py "$(python3 -c 'import benchexec.tools, os; print(os.path.dirname(benchexec.tools.__file__))')"
# Then `<benchmark tool="baton">` runs Baton, and table-generator reads Baton's own result XML
# (toolmodule="benchexec.tools.baton") without warnings.
#
# Options of a run definition are the words after `baton`: a first option that does not start
# with `-` is the subcommand (`verify`, or `run FLOW.yaml`); without one, `verify`. Example:
#   <rundefinition name="explicit"><option name="--analysis">explicit</option></rundefinition>
#   <rundefinition name="flow"><option name="run">configs/native.yaml</option></rundefinition>

import re

import benchexec.result as result
import benchexec.tools.template
from benchexec.tools.sv_benchmarks_util import ILP32, LP64, get_data_model_from_task

# SV-COMP's reachability property: `CHECK( init(main()), LTL(G ! call(F())) )`.
_UNREACH_CALL = re.compile(r"CHECK\(init\(main\(\)\),LTL\(G!call\(([A-Za-z_][A-Za-z0-9_]*)\(\)\)\)\)")
# The error functions Baton's frontend treats as the property violation.
_ERROR_FUNCTIONS = ("reach_error", "__VERIFIER_error")
_SUBCOMMANDS = ("verify", "run")


def unreach_call_function(property_text):
    """The error function of an unreach-call property file's text, else None (read by content,
    as Baton reads it: every formula line must be the same unreach-call formula)."""
    formulas = []
    for line in property_text.splitlines():
        line = line.split("//", 1)[0]
        line = "".join(line.split())
        if line:
            formulas.append(line)
    if not formulas or any(f != formulas[0] for f in formulas):
        return None
    match = _UNREACH_CALL.fullmatch(formulas[0])
    return match.group(1) if match else None


class Tool(benchexec.tools.template.BaseTool2):
    """
    Tool info for Baton (conditional model checking of C programs: flows of verifiers, each
    hands on what it verified as a condition automaton). Verifies unreach-call only; a `false`
    is reported only after Baton replayed its counterexample.
    """

    def executable(self, tool_locator):
        return tool_locator.find_executable("baton")

    def name(self):
        return "Baton"

    def project_url(self):
        return None

    def version(self, executable):
        return self._version_from_tool(executable, line_prefix="baton ")

    def program_files(self, executable):
        # One binary: the tool adapters are embedded; flows are given as options.
        return [executable]

    def cmdline(self, executable, options, task, rlimits):
        options = list(options)
        if options and not options[0].startswith("-"):
            if options[0] not in _SUBCOMMANDS:
                raise benchexec.tools.template.UnsupportedFeatureException(
                    f"Baton subcommand '{options[0]}' cannot be benchmarked (use verify or run)"
                )
            subcommand = [options.pop(0)]
            if subcommand[0] == "run":
                if not options:
                    raise benchexec.tools.template.UnsupportedFeatureException(
                        "'run' needs a flow file as its next option"
                    )
                subcommand.append(options.pop(0))
        else:
            subcommand = ["verify"]

        if task.property_file:
            with open(task.property_file) as f:
                function = unreach_call_function(f.read())
            if function is None:
                raise benchexec.tools.template.UnsupportedFeatureException(
                    "Baton verifies unreach-call only"
                )
            if function not in _ERROR_FUNCTIONS:
                raise benchexec.tools.template.UnsupportedFeatureException(
                    f"unreach-call of '{function}': Baton knows {' and '.join(_ERROR_FUNCTIONS)}"
                )

        if len(task.input_files) != 1:
            raise benchexec.tools.template.UnsupportedFeatureException(
                "Baton verifies one C file per task"
            )
        data_model = get_data_model_from_task(
            task, {ILP32: ["--data-model", "ILP32"], LP64: ["--data-model", "LP64"]}
        )
        if data_model and "--data-model" not in options:
            options += data_model

        return [executable] + subcommand + options + list(task.input_files)

    def determine_result(self, run):
        # `verify` prints `verdict: V`, `run` prints `verdict: V (decided by STAGE); …` last.
        for line in reversed(run.output):
            if not line.startswith("verdict: "):
                continue
            words = line[len("verdict: ") :].split()
            verdict = words[0] if words else ""
            if verdict == "true":
                return result.RESULT_TRUE_PROP
            if verdict.startswith("false"):
                return result.RESULT_FALSE_REACH
            if verdict == "unknown":
                return result.RESULT_UNKNOWN
            return result.RESULT_ERROR + f" (verdict {verdict})"
        if run.exit_code.value:
            return result.RESULT_ERROR + f" (exit code {run.exit_code.value})"
        return result.RESULT_ERROR + " (no verdict)"

    def get_value_from_output(self, output, identifier):
        # `<column title="states">reached states: (\d+)</column>`-style regular expressions.
        regex = re.compile(identifier)
        for line in output:
            match = regex.search(line)
            if match:
                return match.group(1) if match.groups() else match.group(0)
        return None

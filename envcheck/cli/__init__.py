"""The command line: `main` (dispatch and exit codes), `table` (every command and option as data),
`options` (argparse with ENVCHECK_* variables), `help`, `exits`, and `commands/`, one module per
command, imported only for the command that runs. `entry` is the console script: it answers
`--version` without importing the rest.

Kept empty of imports: the console script imports this package first.
"""

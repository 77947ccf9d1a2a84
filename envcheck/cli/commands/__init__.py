"""The code of each command: read the parsed options, call the library, print, return the exit
code. The options themselves are declared in envcheck.cli.table."""

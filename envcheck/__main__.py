"""`python -m envcheck` runs the command line."""

from envcheck.cli.entry import main

main()

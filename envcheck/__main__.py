"""`python -m envcheck` runs the command line."""

from envcheck.cli import main

main()

"""`python -m envcheck` runs the command line."""

from envcheck.entry import main

main()

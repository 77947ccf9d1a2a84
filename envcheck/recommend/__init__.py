"""What to install for a machine: `machine` (the machine, from flags or this host), `rank` (every
TensorFlow release ranked for it, with reasons), `windows_setup` (the Windows set-up plan across
the installed Pythons)."""

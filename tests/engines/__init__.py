"""The engines clusters run envcheck on, each exercised for real: Slurm, Kubernetes."""

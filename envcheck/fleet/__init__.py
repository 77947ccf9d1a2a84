"""`envcheck fleet`: many nodes' doctor reports merged into groups, and `fleet plan`: will an
image run on each group (issue 21, 5 and 6). Reads reports; judges nothing a node's own doctor
did not, except the image against each group in `plan` (through diagnose/ and matrix/)."""

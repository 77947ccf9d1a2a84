"""Acquiring wheels: planning what a machine needs, downloading it into a wheelhouse (`fetch`),
and installing it into one environment (`install`).

`wheelhouse_fetch` plans each target's requirements and downloads them through `envcheck.index`;
`wheelhouse_lock` lets one fetch at a time write a wheelhouse and `manifest` keeps its
`wheelhouse.json`; `install_plan`, `install_constraints` and `install_run` plan, pin and call
the target environment's installer. Nothing here prints (that is the CLI).
"""

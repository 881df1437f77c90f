# Sourced by .ci/run: installs the pgscan workload's Python peers (the ADBC
# PostgreSQL driver, ConnectorX, pyarrow) so that CI measures them. The
# workload finds them through the first python3 on PATH. Where the system
# Python refuses pip (PEP 668, as Debian 12's does), a virtual environment
# under the repository's tmp/ is made and put first on PATH. Nothing here
# fails the build: without the peers their cases are skipped, not failed.
pgscan_peers="adbc-driver-postgresql pyarrow connectorx"
pgscan_probe="import adbc_driver_postgresql, pyarrow, connectorx"
if ! command -v python3 >/dev/null 2>&1; then
  echo "ci: no python3: the pgscan peers (ADBC, ConnectorX) will be skipped"
elif python3 -c "$pgscan_probe" >/dev/null 2>&1; then
  echo "ci: pgscan peers already installed"
else
  pgscan_venv="$PWD/tmp/pyvenv"
  if { [ -x "$pgscan_venv/bin/python3" ] || python3 -m venv "$pgscan_venv" >/dev/null 2>&1; } &&
    "$pgscan_venv/bin/python3" -m pip install --quiet --disable-pip-version-check $pgscan_peers; then
    export PATH="$pgscan_venv/bin:$PATH"
    echo "ci: pgscan peers installed in $pgscan_venv"
  elif python3 -m pip install --quiet --disable-pip-version-check --user $pgscan_peers; then
    echo "ci: pgscan peers installed with pip --user"
  else
    echo "ci: pip could not install $pgscan_peers: the pgscan peers will be skipped"
  fi
fi

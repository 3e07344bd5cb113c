#!/bin/sh
# Makes the secrets docker/compose.yaml reads, once (a secret that exists is kept): MySQL's root password and the
# CDC runner's, each 32 random hex digits in a file only its owner reads. Run it before the first
# `docker compose --profile cdc up`; EVENKEEL_SECRETS_DIR puts them elsewhere (compose reads the same variable).
set -eu
dir="${EVENKEEL_SECRETS_DIR:-$(dirname "$0")/secrets}"
umask 077
mkdir -p "$dir"
for name in mysql-root-password cdc-password; do
  if [ ! -s "$dir/$name" ]; then
    od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$dir/$name"
  fi
done
echo "secrets in $dir: mysql-root-password, cdc-password"

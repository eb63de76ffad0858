#!/bin/sh
# Started without a configuration file, redis-server refuses other hosts' connections ("protected mode");
# the official image builds it with protected mode off, so do the same for the containers on the network.
set -eu
if [ "${1:-}" = redis-server ]; then
  shift
  exec redis-server --protected-mode no "$@"
fi
exec "$@"

#!/bin/sh
# Raises every Inquest stream and KV bucket to $REPLICAS (default 3) copies on the NATS cluster.
#
# Why: the services provision their streams and buckets idempotently at start, with INQUEST_NATS_REPLICAS
# copies (default 1). On a 3-node cluster an R1 stream lives on ONE node: losing that node stops
# investigations. Services started with INQUEST_NATS_REPLICAS=3 scale existing streams up themselves; this
# script is for installs whose services run without it. The services keep an existing stream's replica
# count when they ask for fewer (shared/nats/provision.ts replicasToKeep): a later start, or the CLI,
# without the setting never scales a stream or bucket down.
#
# Needs the `nats` CLI (nats-box image) and NATS_URL (plus credentials if the cluster has auth).
#   compose:    docker compose --profile ops run --rm nats-replicate
#   kubernetes: from a pod with the nats CLI and the services' seed (NATS_NKEY=<file>; the cluster requires it)
set -eu
REPLICAS="${REPLICAS:-3}"
SERVER="${NATS_URL:-nats://nats:4222}"

streams=$(nats --server "$SERVER" stream list -n | grep -E '^(EVENTS|INQ_[A-Z_]+|KV_inq_[a-z_]+)$' || true)
if [ -z "$streams" ]; then
  echo "no Inquest streams yet: start the services first" >&2
  exit 1
fi
for s in $streams; do
  echo "stream $s -> $REPLICAS replicas"
  nats --server "$SERVER" stream edit "$s" --replicas "$REPLICAS" --force >/dev/null
done
nats --server "$SERVER" stream report

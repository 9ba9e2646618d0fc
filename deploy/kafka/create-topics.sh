#!/usr/bin/env bash
# Create Shoal's Kafka topics with kafka-topics.sh: the plain-Kafka alternative to topics.yaml
# (Strimzi). Keep the two in step; tests/unit/deploy checks that they agree.
#
#   KAFKA_BOOTSTRAP=broker:9092 [REPLICATION_FACTOR=3] [SHOAL_TOPIC_PREFIX=shoal.] \
#   [KAFKA_TOPICS=/opt/kafka/bin/kafka-topics.sh] deploy/kafka/create-topics.sh
#
# Existing topics are left as they are (--if-not-exists), so re-running it is safe.
# Co-partitioned: state.jobs, state.pods, state.podgroups and state.services must have the same
# partition count (pods, podgroups and services are keyed by their owning job); see topics.yaml.
set -euo pipefail

bootstrap="${KAFKA_BOOTSTRAP:?set KAFKA_BOOTSTRAP to host:port of a broker}"
replicas="${REPLICATION_FACTOR:-3}"
prefix="${SHOAL_TOPIC_PREFIX:-shoal.}"
kafka_topics="${KAFKA_TOPICS:-kafka-topics.sh}"

compact="cleanup.policy=compact"
week="cleanup.policy=delete,retention.ms=604800000"
fortnight="cleanup.policy=delete,retention.ms=1209600000"
# Never expire: the binder checks epochs against every leadership record, and the first record of
# bus.generation names the log (an expired one would read as a lost log).
forever="cleanup.policy=delete,retention.ms=-1"

# name                   partitions  config
topics=(
  "state.jobs             12  $compact"
  "state.pods             12  $compact"
  "state.podgroups        12  $compact"
  "state.services         12  $compact"
  "state.nodes            3   $compact"
  "state.queues           1   $compact"
  "state.commands         3   $compact"
  "state.priorityclasses  1   $compact"
  "state.poddisruptionbudgets 3 $compact"
  "state.hypernodes       1   $compact"
  "state.configmaps       3   $compact"
  "state.kueue            12  $compact"
  "decisions.binds        12  $week"
  "decisions.evictions    12  $week"
  "decisions.podgroups    12  $week"
  "decisions.kueue        3   $week"
  "results                12  $week"
  "scheduler.cycles       1   $week"
  "scheduler.leader       1   $forever"
  "bus.generation         1   $forever"
  "deadletter             3   $fortnight"
)

for entry in "${topics[@]}"; do
  read -r name partitions config <<<"$entry"
  configs=()
  IFS=, read -ra pairs <<<"$config"
  for pair in "${pairs[@]}"; do
    configs+=(--config "$pair")
  done
  "$kafka_topics" --bootstrap-server "$bootstrap" --create --if-not-exists \
    --topic "$prefix$name" --partitions "$partitions" --replication-factor "$replicas" \
    "${configs[@]}"
done

# Sourced by .ci/run after its own fuzz runs: the Codex rollout reader.
fuzz ./codex FuzzBuilder 100000x

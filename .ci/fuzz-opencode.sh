# Sourced by .ci/run after its own fuzz runs: the opencode log reader.
fuzz ./opencode FuzzBuilder 100000x

# Sourced by .ci/run after its own fuzz runs: the pi session reader (every
# format, branches, a read again from any round's first line).
fuzz ./pi FuzzBuilder 5000x

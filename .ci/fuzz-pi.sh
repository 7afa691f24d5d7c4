# Sourced by .ci/run after its own fuzz runs: the pi session reader (every
# format, branches, a read again from any round's first line).
fuzz ./pi FuzzBuilder 5000x
# The tree's reading of a line's first keys (type, id, parentId) against
# the whole decode (pi/node.go).
fuzz ./pi FuzzReadNode 200000x

# Sourced by .ci/run after its own fuzz runs: the Gemini CLI session reader
# (JSONL records and .json documents).
fuzz ./gemini FuzzBuilder 100000x

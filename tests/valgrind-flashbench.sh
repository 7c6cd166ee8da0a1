#!/bin/sh
# valgrind-flashbench.sh: flashbench under valgrind, for FLASHBENCH in
# make check-valgrind (lib.sh runs "$FLASHBENCH" as one word).

here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/valgrind-exec.sh" "$here/../flashbench" "$@"

#!/bin/sh
# valgrind-erase.sh: erase under valgrind, for ERASE in
# make check-valgrind (lib.sh runs "$ERASE" as one word).

here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/valgrind-exec.sh" "$here/../erase" "$@"

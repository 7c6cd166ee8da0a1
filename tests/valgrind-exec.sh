#!/bin/sh
# valgrind-exec.sh: run PROGRAM under valgrind's memcheck for
# make check-valgrind.  Each process logs to VALGRIND_LOG_DIR (default:
# standard error); a memory error or a definite leak exits 99.
# Usage: tests/valgrind-exec.sh PROGRAM [ARGS...]

prog=$1
shift
if [ -n "$VALGRIND_LOG_DIR" ]; then
	log="--log-file=$VALGRIND_LOG_DIR/${prog##*/}.%p.log"
else
	log=--log-fd=2
fi
exec valgrind -q --tool=memcheck --error-exitcode=99 --leak-check=full \
	--show-leak-kinds=definite --errors-for-leak-kinds=definite \
	$VALGRIND_OPTS "$log" "$prog" "$@"

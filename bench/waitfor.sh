# bench/waitfor.sh: sourced by the benches that wait for a process they
# started (flashemu's ready line, its exit).
#
# wait_for WHAT CMD...: poll CMD (it is an event, not a duration); after
# 60 s say WHAT never came and fail.
wait_for() {
	wf_what=$1
	shift
	wf_n=0
	until "$@"; do
		wf_n=$((wf_n + 1))
		[ $wf_n -ge 6000 ] && { echo "no $wf_what in 60 s" >&2; return 1; }
		sleep 0.01
	done
}

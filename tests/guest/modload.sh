#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# Module load and unload tests for vneuron.ko, run in a guest WITHOUT the module loaded
# (tools/check guest: tools/vmtest -n). Prints TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
ko=${VNEURON_KO:-$top/vneuron.ko}
traffic=${VNEURON_TRAFFIC:-$top/build/rel/guest/vneuron-traffic}
lifetime=${VNEURON_LIFETIME_TEST:-$top/build/rel/guest/kmod_lifetime_test}
counters=/sys/kernel/debug/vneuron/counters
n=0 failed=0

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $1"
}

# check NAME CMD...: one TAP line for CMD's status.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

loaded() {
	grep -q '^vneuron ' /proc/modules
}

unload() {
	loaded && rmmod vneuron
}

# Counters drained: no object, byte or file left.
drained() {
	[ -r "$counters" ] || return 0
	[ "$(awk '{ s += $2 } END { print s + 0 }' "$counters")" = 0 ]
}

# insmod with PARAM=VALUE must fail, leave no module, and log NAME and its RANGE.
refused() {
	local param=$1 value=$2 range=$3 before after
	before=$(dmesg | grep -c "vneuron: $param=$value is out of range ($range)")
	if insmod "$ko" "$param=$value" 2>/dev/null; then
		rmmod vneuron
		return 1
	fi
	loaded && return 1
	after=$(dmesg | grep -c "vneuron: $param=$value is out of range ($range)")
	[ "$after" -gt "$before" ]
}

# A value the kernel's parser rejects before the module runs: still refused, still named.
refused_unparsable() {
	local param=$1 value=$2
	if insmod "$ko" "$param=$value" 2>/dev/null; then
		rmmod vneuron
		return 1
	fi
	! loaded && dmesg | tail -n 5 | grep -q "$param"
}

echo "TAP version 13"
if [ ! -r "$ko" ]; then
	echo "not ok 1 no module at $ko"
	echo "1..1"
	exit 1
fi
unload
# Load a private copy: the tree's vneuron.ko may be rebuilt while this runs.
tmpko=$(mktemp /tmp/vneuron.XXXXXX.ko)
trap 'rm -f "$tmpko"' EXIT
cp "$ko" "$tmpko" && ko=$tmpko

check "refuse devices=0" refused devices 0 1..16
check "refuse devices=17" refused devices 17 1..16
check "refuse cores=0" refused cores 0 1..8
check "refuse cores=9" refused cores 9 1..8
check "refuse hbm_mb=0" refused hbm_mb 0 1..4096
check "refuse hbm_mb=4097" refused hbm_mb 4097 1..4096
check "refuse max_programs=0" refused max_programs 0 1..65535
check "refuse max_programs=65536" refused max_programs 65536 1..65535
check "refuse max_program_mb=65537" refused max_program_mb 65537 1..65536
check "refuse max_execs=0" refused max_execs 0 1..65536
check "refuse max_exec_mb=0" refused max_exec_mb 0 1..65536
check "refuse max_trace_mb=0" refused max_trace_mb 0 1..65536
# An unknown model: refused, and the log names it and the valid ones.
refused_model() {
	local value=$1 before after msg
	msg="vneuron: model=$value is not a device model (trn1, trn2, trn3)"
	before=$(dmesg | grep -c -F "$msg")
	if insmod "$ko" "model=$value" 2>/dev/null; then
		rmmod vneuron
		return 1
	fi
	loaded && return 1
	after=$(dmesg | grep -c -F "$msg")
	[ "$after" -gt "$before" ]
}
check "refuse model=trn9" refused_model trn9
check "refuse model=TRN2 (names are lower case)" refused_model TRN2
check "refuse model=trn1x" refused_model trn1x
check "refuse devices=-1 (unparsable)" refused_unparsable devices -1
check "refuse cores=abc (unparsable)" refused_unparsable cores abc

two_devices() {
	local d c
	insmod "$ko" devices=2 cores=4 hbm_mb=64 || return 1
	for d in 0 1; do
		[ -c /dev/vneuron$d ] || return 1
		c=/sys/class/vneuron/vneuron$d
		[ "$(cat $c/core_count)" = 4 ] || return 1
		[ "$(cat $c/hbm_total)" = $((64 << 20)) ] || return 1
		[ "$(cat $c/hbm_used)" = 0 ] || return 1
		[ "$(cat $c/model_name)" = trn1 ] || return 1
		[ -r $c/core3/stats/executions_ok/total ] || return 1
		[ "$(cat $c/core3/stats/flops/peak)" = 0 ] || return 1
		[ ! -e $c/core4 ] || return 1
	done
	[ ! -e /dev/vneuron2 ] && [ ! -e /sys/class/vneuron/vneuron2 ] || return 1
	[ "$(cat /sys/module/vneuron/parameters/cores)" = 4 ] || return 1
	"$traffic" /dev/vneuron1 || return 1
	drained
}
check "devices=2 cores=4: /dev/vneuron0 and 1, sysfs" two_devices
check "rmmod after devices=2" rmmod vneuron

defaults() {
	insmod "$ko" || return 1
	[ -c /dev/vneuron0 ] && [ ! -e /dev/vneuron1 ] || return 1
	[ "$(cat /sys/class/vneuron/vneuron0/core_count)" = 2 ] || return 1
	[ "$(cat /sys/class/vneuron/vneuron0/hbm_total)" = $((256 << 20)) ]
}
check "defaults: one device, 2 cores, 256 MiB" defaults
check "the node is 0660, not world-accessible" bash -c '[ "$(stat -c %a /dev/vneuron0)" = 660 ]'
check "GET_INFO reports the default per-file limits" bash -c "'$top/build/bin/vneuron-ls' --json |
	grep -q '\"limits\": {\"max_programs\": 256, \"max_execs\": 1024, \"max_program_bytes\": 268435456, \"max_exec_bytes\": 1073741824, \"max_trace_bytes\": 1610612736}'"

busy_while_open() {
	local rc=0
	exec 3<>/dev/vneuron0
	rmmod vneuron 2>/dev/null && rc=1
	loaded || rc=1
	exec 3>&-
	return $rc
}
check "rmmod refused while a file is open" busy_while_open

busy_while_mapped() {
	local rc=0 line
	coproc HOLD { "$traffic" --hold /dev/vneuron0; }
	read -r line <&"${HOLD[0]}"
	[ "$line" = held ] || rc=1
	rmmod vneuron 2>/dev/null && rc=1
	loaded || rc=1
	exec {HOLD[1]}>&-
	wait "$HOLD_PID" || rc=1
	return $rc
}
check "rmmod refused while a buffer is mapped" busy_while_mapped
check "counters drained after close" drained
check "rmmod works after close" rmmod vneuron
check "module gone" bash -c '! grep -q "^vneuron " /proc/modules && [ ! -e /dev/vneuron0 ]'

# 20 rounds of load, traffic, unload, alternating parameters.
rounds() {
	local i p
	for i in $(seq 1 20); do
		p="devices=$((i % 3 + 1)) cores=$((i % 8 + 1)) hbm_mb=$((16 << (i % 4)))"
		insmod "$ko" $p || { echo "# round $i: insmod $p failed"; return 1; }
		if [ $((i % 5)) = 0 ] && [ -x "$lifetime" ]; then
			"$lifetime" >/dev/null || { echo "# round $i: $lifetime failed"; return 1; }
		else
			"$traffic" "/dev/vneuron$((i % 3))" ||
				{ echo "# round $i: traffic failed"; return 1; }
		fi
		drained || { echo "# round $i: counters not drained"; return 1; }
		rmmod vneuron || { echo "# round $i: rmmod failed"; return 1; }
	done
}
check "20 rounds of insmod, traffic, rmmod" rounds
check "no module left after the rounds" bash -c '! grep -q "^vneuron " /proc/modules'

# The class and char region are gone, so a new load starts clean.
reload() {
	[ ! -e /sys/class/vneuron ] || return 1
	insmod "$ko" devices=16 cores=8 hbm_mb=4096 || return 1
	[ -c /dev/vneuron15 ] && [ -r /sys/class/vneuron/vneuron15/core7/stats/flops/total ] ||
		{ rmmod vneuron; return 1; }
	rmmod vneuron
}
check "the largest configuration loads and unloads" reload

# Executor threads (vn-D.C-engine) alive now.
executors() {
	local c n=0
	for c in /proc/[0-9]*/comm; do
		case $(cat "$c" 2>/dev/null) in vn-*) n=$((n + 1)) ;; esac
	done
	echo $n
}

# A core's executor (2 threads, 26 MiB) lives while the core is claimed, and goes once
# its owner closes: idle cores cost nothing, however many were used.
executors_freed() {
	local i r=0
	insmod "$ko" devices=4 cores=8 || return 1
	[ "$(executors)" = 0 ] || r=1
	for i in 0 1 2 3; do
		"$traffic" /dev/vneuron$i || r=1
	done
	for i in $(seq 1 100); do
		[ "$(executors)" = 0 ] && break
		sleep 0.1
	done
	[ "$(executors)" = 0 ] || { echo "# $(executors) executor threads left"; r=1; }
	drained || r=1
	rmmod vneuron || r=1
	return $r
}
check "executors of released cores are freed" executors_freed
limits_params() {
	local r=0
	insmod "$ko" max_programs=3 max_program_mb=1 max_execs=5 max_exec_mb=2 max_trace_mb=7 ||
		return 1
	"$top/build/bin/vneuron-ls" --json |
		grep -q '"limits": {"max_programs": 3, "max_execs": 5, "max_program_bytes": 1048576, "max_exec_bytes": 2097152, "max_trace_bytes": 7340032}' ||
		r=1
	rmmod vneuron || r=1
	return $r
}
check "limit parameters reach GET_INFO" limits_params

# model=NAME [cores=N]: every device has the model and its default (or given) cores;
# sysfs, GET_INFO (vneuron-ls) and the parameter say so, and a program runs.
model_param() {
	local name=$1 want=$2 extra=${3:-} r=0 c=/sys/class/vneuron/vneuron0
	insmod "$ko" "model=$name" $extra || return 1
	[ "$(cat $c/model_name)" = "$name" ] || r=1
	[ "$(cat $c/core_count)" = "$want" ] || r=1
	[ "$(cat /sys/module/vneuron/parameters/model)" = "$name" ] || r=1
	[ "$(cat /sys/module/vneuron/parameters/cores)" = "$want" ] || r=1
	"$top/build/bin/vneuron-ls" --json | grep -q "\"model\": \"$name\", \"cores\": $want," || r=1
	"$top/build/bin/vneuron-ls" --json | grep -q "\"module\": {\"loaded\": true, .*\"model\": \"$name\"" || r=1
	"$top/build/bin/vneuron-ls" | grep -q "| /dev/vneuron0  | *$want | .* | $name  |" || r=1
	"$traffic" /dev/vneuron0 || r=1
	drained || r=1
	rmmod vneuron || r=1
	return $r
}
check "model=trn1: 2 cores" model_param trn1 2
check "model=trn2: 8 cores by default" model_param trn2 8
check "model=trn3: 8 cores by default" model_param trn3 8
check "model=trn2 cores=3: the given cores" model_param trn2 3 cores=3
small_limits() {
	local r=0
	insmod "$ko" max_programs=2 max_execs=2 max_trace_mb=1 || return 1
	"$traffic" --limits /dev/vneuron0 || r=1
	drained || r=1
	rmmod vneuron || r=1
	return $r
}
check "small limits refuse the call that passes them" small_limits

quiet() {
	# Loads, refusals and traffic leave nothing in the log but the refusals.
	! dmesg | grep -E 'vneuron' | grep -v -E 'out of range|is not a device model|invalid for parameter|taints kernel|module verification failed|Unknown parameter' | grep -q .
}
check "no other vneuron messages in dmesg" quiet
check "no kernel warnings" bash -c '! dmesg | grep -E -q "WARNING:|BUG:|Oops|general protection"'

# A budget larger than the machine: an allocation it cannot back is -ENOMEM, quietly
# (no allocation-failure report, no OOM kill), and the device still works after it.
unbacked() {
	local mem r=0
	mem=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)
	[ "$mem" -lt $((3 << 30)) ] || { echo "# more than 3 GiB here: nothing to test"; return 0; }
	insmod "$ko" hbm_mb=4096 || return 1
	"$traffic" --enomem /dev/vneuron0 $((4096 << 20)) || r=1
	"$traffic" /dev/vneuron0 || r=1
	drained || r=1
	rmmod vneuron || r=1
	dmesg | grep -E -q 'vmalloc error|page allocation failure|Out of memory|oom-kill' && r=1
	return $r
}
check "an allocation the host cannot back fails with ENOMEM, quietly" unbacked

# Last: every param at its bounds is accepted.
bounds() {
	local p
	for p in "devices=1 cores=1 hbm_mb=1" "devices=16 cores=1 hbm_mb=1" "cores=8 hbm_mb=4096" \
		"max_programs=1 max_program_mb=1 max_execs=1 max_exec_mb=1 max_trace_mb=1" \
		"max_programs=65535 max_program_mb=65536 max_execs=65536 max_exec_mb=65536 max_trace_mb=65536"; do
		insmod "$ko" $p || return 1
		rmmod vneuron || return 1
	done
}
check "parameters at their bounds load" bounds
check "hbm_mb=1 gives a 1 MiB device" bash -c "insmod '$ko' hbm_mb=1 && [ \"\$(cat /sys/class/vneuron/vneuron0/hbm_total)\" = 1048576 ]; r=\$?; rmmod vneuron; exit \$r"

unload
echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]

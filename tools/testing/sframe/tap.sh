# SPDX-License-Identifier: GPL-2.0
# TAP for the shell tests, sourced: ok STATUS NAME prints one test line
# (STATUS 0 passes); tap_done prints the plan and fails if any test did.

n=0
failed=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}

tap_done() {
	echo "1..$n"
	[ $failed = 0 ]
}

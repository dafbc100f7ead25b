#!/usr/bin/env bash
# Tests that need more than the regress suite's server: the regress suite
# against a server under valgrind, and multi-server training through
# postgres_fdw.  Called by scripts/quickstart.sh test after `make install`.
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
step() {
	local name=$1
	shift
	printf '\n=== extra: %s\n' "$name"
	if "$@"; then
		passed=$((passed + 1))
	else
		echo "=== extra: FAILED: $name" >&2
		failed=$((failed + 1))
	fi
}

step "valgrind-regress" bash scripts/valgrind-regress.sh
if [ -f test/multiserver.sh ]; then
	step "multiserver" bash test/multiserver.sh
fi
echo "extra: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/bin/sh
# The fault-injection suite's classes that boot no kernel (a patch that
# does not apply, a dropped fragment option, an interrupted build, crafted
# consoles, an unexpected skip): tests/faults/faults.t --quick, a few
# seconds. make check runs every class, tests/faults/.
exec "$(dirname "$0")/../faults/faults.t" --quick

#!/bin/sh
# "ssh HOST CMD...": run CMD here (a second "machine" on this one, for tests)
while [ "$#" -gt 0 ]; do case "$1" in -*) shift;; *) break;; esac; done
shift
exec /bin/sh -c "$*"

#!/bin/sh
# Never ready, and leaves a grandchild that ignores SIGTERM; its pid goes to $1.
sh -c 'trap "" TERM; exec sleep 600' &
echo $! > "$1"
exec sleep 600

#!/bin/sh
# Needs longer than the maximum hold, and says so.
systemd-notify EXTEND_TIMEOUT_USEC=30000000
echo waiting
read line < "$1"
systemd-notify --ready
exec sleep 600

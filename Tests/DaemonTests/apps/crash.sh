#!/bin/sh
# Fails before it is ready.
systemd-notify --status="cannot open the catalogue"
exit 3

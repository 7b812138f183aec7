#!/bin/sh
# Ready at once, then gone: systemd-notify (from this shell, so the message is attributed to
# the app) and the shell exits the moment it returns.
systemd-notify --ready --status=done

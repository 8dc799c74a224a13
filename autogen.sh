#!/bin/sh
# Regenerate the build system (configure, Makefile.in, config/tap-driver.sh).
set -e
cd "$(dirname "$0")"
autoreconf -fi

#!/bin/sh
# autogen.sh: regenerates configure and the Makefile.in files from a git checkout.
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf --install --force

#!/bin/sh
# Placeholder until the extension lands: skipped.
exit 77

#!/bin/sh
# CTest's doctest discovery splits a test name at ';': the cut name matches no
# test, which then runs nothing and "passes" in 0.00 s. Refuse such names.
found=$(grep -rn --include='*.cc' 'TEST_CASE("[^"]*;' "$1")
if [ -n "$found" ]; then
  echo "test names must not contain ';' (CTest would run nothing for them):"
  echo "$found"
  exit 1
fi
echo "no test name contains ';'"

#!/usr/bin/env bash
# Session 18, call 1 (LIMIT seconds): session 17's g68 again (its machine was taken back before it
# finished): session 17's changes to the harness's runtime path (untimed runs wait blocking and do
# not poll; the empty-kernel server sleeps until its first RUN; a timed judge's result buffer
# page-locked) against every lab's verdicts: the Check tests, selfcheck of labs 3.1, 3.2, 3.4 and
# 3.5, the known-bad fixtures of all labs. Run as `LIMIT=540 bash .../g69.sh $OUT`.
CML_CALL=g69 exec bash bench/h200-2026-12-03-session17/g68.sh "$@"

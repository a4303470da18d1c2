"""The CUDA Memory Labs autograder: ``python3 -m grader --help``.

One module per idea (docs/protocol.md holds the contracts they implement):

- ``cli``: the command line (``grade``, ``selfcheck``, ``skeleton``) and exit codes
- ``manifest``: ``lab.toml`` into dataclasses, with precise errors
- ``skeleton``: skeletons generated from solutions (solution markers)
- ``assemble``: pristine lab + the submission's student files, in a fresh directory
- ``build``: ``make lab-bin`` on the assembled directory; readable compile errors
- ``tools``: where nvcc, cuobjdump, compute-sanitizer and nm are
- ``sass``: ``cuobjdump -sass`` / ``-res-usage`` parsing and opcode patterns
- ``symbols``: the symbol allow-list of the student objects (a trust boundary)
- ``run``: one process group per run, with a wall-clock limit and resource limits
- ``harness``: the lab binary's command line and run documents
- ``sanitizer``: compute-sanitizer runs and their reports
- ``scoring``: points per part, the correctness gate, the exit status
- ``diagnose``: one readable line (with a hint) per failure
- ``report``: the terminal report and the JSON report
- ``grade``: the steps of one grading, in order
- ``selfcheck``: every solution full marks, every skeleton zero
"""

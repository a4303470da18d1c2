"""The grader's own exception: a problem that stops grading (exit status 2).

A ``GraderError`` carries a message meant for a person ("labs/3.3-tiling/lab.toml:
exercise 'matmul_tiled': points.static must be a non-negative integer"). It is raised for
usage errors, invalid manifests, a course tree that does not build, or a harness that breaks
its contract. Failures of the submission itself (compile errors, crashes, wrong answers) are
never exceptions: they are graded results.
"""


class GraderError(Exception):
    """A problem that stops grading; the message is shown as is, without a traceback."""

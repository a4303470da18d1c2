/* cml_exchange.h — how much of the empty-kernel exchange the judge subtracts from a student
 * sample (design notes 22, 51 and 95).
 *
 * The judge times each student sample on its own clock from RUN to DONE, so a sample holds
 * the exchange with the student's process as well as its launches. To take that exchange out,
 * every round also times the same exchange with the course's empty-kernel server
 * (worker_overhead_ms: its median beyond the judge's own empty launch), and the judge
 * subtracts it from each student sample. The server's exchange is the course's, but what
 * slows it is not only the course's: a process of the submission's that keeps the GPU busy
 * during the server's turn lengthens it, and every student sample shrinks by as much.
 *
 * So the subtraction is capped at the same exchange timed before the student's process
 * existed (worker_overhead_alone_ms) plus CML_EXCHANGE_ALLOWANCE_MS, the most the student's
 * context was measured to add honestly. What an exchange takes beyond the cap stays in the
 * student's samples; the grader times a run again whose exchange took far more
 * (grader/plausible.py, exchange_slowed).
 *
 * Measured (H100 80GB HBM3, bench/h200-2026-12-06-session41): the exchange alone 0.0035-0.0126
 * ms; among the repetitions of 352 honest timed runs of a class of 100 at --jobs 16, 0.149-0.202
 * ms (median 0.154); sessions 39-40's 259 honest runs of labs 3.2 and 3.5, 0.146-0.224 ms; the
 * H200 (session 23) 0.148-0.188 ms. A child of the submission's process woken after each of
 * its launches to spin every SM (bench/exchange_pad, g133) lengthened it to 0.37 ms, under the
 * grader's 0.5 ms margin: 0.26 ms was subtracted.
 */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* Milliseconds over the exchange alone that the student's context may add honestly: above the
 * 0.224 ms most measured among the repetitions, against 0.0035-0.0126 alone. */
#define CML_EXCHANGE_ALLOWANCE_MS 0.25

/* The milliseconds to subtract from each student sample: among_ms (the exchange among the
 * repetitions), at most alone_ms + CML_EXCHANGE_ALLOWANCE_MS, never below 0. alone_ms < 0
 * (not timed alone: a run with no timing of its own, or a server that was not up) leaves
 * among_ms uncapped, as before the alone figure existed. NaN in either gives 0: nothing is
 * subtracted on a figure that is not one. */
double cml_exchange_subtracted(double among_ms, double alone_ms);

#ifdef __cplusplus
}
#endif

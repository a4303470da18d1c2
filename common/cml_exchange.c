/* cml_exchange.c — the capped exchange subtracted from student samples (cml_exchange.h). */
#include "cml_exchange.h"

#include <math.h>

double cml_exchange_subtracted(double among_ms, double alone_ms) {
    if (isnan(among_ms) || isnan(alone_ms) || among_ms <= 0.0) {
        return 0.0;
    }
    if (alone_ms < 0.0) {
        return among_ms;
    }
    const double cap = alone_ms + CML_EXCHANGE_ALLOWANCE_MS;
    return among_ms < cap ? among_ms : cap;
}

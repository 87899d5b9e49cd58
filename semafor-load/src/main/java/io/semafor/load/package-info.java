/**
 * Load generators that drive a running server through the client and the protocol: {@link
 * io.semafor.load.LoadGenerator} (W1–W3, what {@code semafor bench} runs), the held-session, watch,
 * storm and failover loads of {@code semafor-bench/*.sh}, and the echo server of the floor
 * measurement. No JMH and no JOL: those stay with the micro-benchmarks in semafor-bench, out of the
 * shipped command's jar.
 */
@NullMarked
package io.semafor.load;

import org.jspecify.annotations.NullMarked;

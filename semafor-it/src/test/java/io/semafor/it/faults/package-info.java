/**
 * Checks for histories recorded by many client processes while faults are injected: each client
 * appends what it saw ({@link io.semafor.it.faults.Op}) to its own {@link
 * io.semafor.it.faults.OpLog}, and after the run the merged history is held to a sequential
 * counting-semaphore model ({@link io.semafor.it.faults.LinearizabilityChecker}) and to the
 * accounting checks of {@link io.semafor.it.faults.FaultChecks}. Pure code: no servers.
 */
@NullMarked
package io.semafor.it.faults;

import org.jspecify.annotations.NullMarked;

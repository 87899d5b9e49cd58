/**
 * The deterministic semaphore state machine at the centre of Semafor.
 *
 * <p>{@link io.semafor.core.SemaphoreMachine#apply} takes a {@link io.semafor.core.Command} and the
 * log time at which it applies, and returns an {@link io.semafor.core.Outcome}: the reply and the
 * {@link io.semafor.core.Effect}s for the edge to carry out. Nothing in this package reads a clock,
 * starts a thread, or touches a socket or a file, so the same command log yields the same state on
 * every replica.
 */
@NullMarked
package io.semafor.core;

import org.jspecify.annotations.NullMarked;

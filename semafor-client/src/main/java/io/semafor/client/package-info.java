/**
 * The Semafor Java client: {@link io.semafor.client.SemaforClient} and the handles it gives —
 * {@link io.semafor.client.NamedSemaphore}, {@link io.semafor.client.Permit}, {@link
 * io.semafor.client.Lease}, {@link io.semafor.client.Semop}, {@link io.semafor.client.WaitMany},
 * {@link io.semafor.client.SemaforSemaphore}. Everything in {@code io.semafor.client.internal} is
 * internal and may change.
 */
@NullMarked
package io.semafor.client;

import org.jspecify.annotations.NullMarked;

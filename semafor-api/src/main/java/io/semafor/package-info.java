/**
 * The vocabulary every part of Semafor shares: the stable error codes, a semaphore's options and
 * grant policy, what a client says of itself. Immutable values; thread-safe.
 */
package io.semafor;

/**
 * Server-pushed watches (decision 0041): what a node keeps to push every change of the semaphores a
 * client watches, and to catch a watcher up after a gap.
 */
@NullMarked
package io.semafor.server.watch;

import org.jspecify.annotations.NullMarked;

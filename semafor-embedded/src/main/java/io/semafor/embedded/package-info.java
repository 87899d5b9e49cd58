/** Semafor in-process: {@link io.semafor.embedded.EmbeddedSemafor}. */
@NullMarked
package io.semafor.embedded;

import org.jspecify.annotations.NullMarked;

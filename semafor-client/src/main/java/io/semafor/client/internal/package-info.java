/** The client's engine: one session over one connection at a time. Not API. */
@NullMarked
package io.semafor.client.internal;

import org.jspecify.annotations.NullMarked;

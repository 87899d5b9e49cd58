/**
 * The naive reference model of docs/semantics.md and the property tests that hold the engine to it.
 * Uses only the core's public types, so it cannot share a bug with the engine's internals.
 */
@NullMarked
package io.semafor.core.model;

import org.jspecify.annotations.NullMarked;
